"""Tell what each column of a spreadsheet holds, from its header (any order, any case) or `--map`.

People name their columns `Question,Answer`, `Front,Back`, or a question, four options `A`..`D`
and the right option's letter. Each header cell is matched against the names below; `--map
column=field` overrides the match for one column. The result says, for the report, what each
column became.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.core.i18n import M_

FIELDS = ("type", "id", "topic", "difficulty", "prompt", "answer", "option", "wrong", "options", "hint", "explanation", "ignore")
"""What a column can become; `option` is one option per column, `wrong` one wrong option per column,
`options` several options in one cell separated by `|`, `ignore` is not read."""

_NAMES: dict[str, tuple[str, ...]] = {
    "type": ("type", "question type", "item type", "kind"),
    "id": ("id", "item id", "question id"),
    "topic": ("topic", "category", "subject", "deck", "chapter", "section", "unit"),
    "difficulty": ("difficulty", "level"),
    "prompt": ("prompt", "question", "question text", "front", "term", "q", "stem", "text"),
    "answer": (
        "answer", "answers", "back", "correct", "correct answer", "right answer", "correct option",
        "answer letter", "answer key", "key", "solution", "definition", "correct choice",
    ),
    "options": ("options", "choices", "alternatives"),
    "hint": ("hint", "hints", "clue"),
    "explanation": ("explanation", "rationale", "feedback", "reason", "why", "explanations", "notes", "note"),
}
_LOOKUP = {name: field for field, names in _NAMES.items() for name in names}
_OPTION = re.compile(r"^(?:(?:option|choice|opt|answer|alternative)\s*([a-h1-9])|([a-h]))$")
_WRONG = re.compile(r"^(?:wrong|incorrect|distractor|false)(?:\s*(?:answer|option|choice))?\s*\d*$")


def normal(name: str) -> str:
    """Lower-case a header cell and collapse `_`, `-`, `.`, `:`, `#` and spaces into single spaces."""
    return " ".join(re.sub(r"[_\-.:#()]+", " ", name.replace("\ufeff", "")).lower().split())


@dataclass(frozen=True)
class Column:
    """One column of the sheet: its header as written, what it became, and an option's label."""

    header: str
    field: str
    label: str = ""  # an option column's letter or number as the header gives it: `A`, `2`


def guess(header: str) -> Column:
    """Match one header cell; unknown names become `ignore`."""
    key = normal(header)
    if key in _LOOKUP:
        return Column(header, _LOOKUP[key])
    option = _OPTION.match(key)
    if option is not None:
        return Column(header, "option", (option.group(1) or option.group(2)).upper())
    if _WRONG.match(key):
        return Column(header, "wrong")
    return Column(header, "ignore")


def parse_map(pairs: list[str] | tuple[str, ...]) -> dict[str, str]:
    """Read `column=field` overrides; raise ValueError naming the fields a column can become."""
    out: dict[str, str] = {}
    for pair in pairs:
        column, sep, field = pair.partition("=")
        field = field.strip().lower()
        if not sep or not column.strip():
            raise ValueError(f"`{pair}`: write COLUMN=FIELD, e.g. Front=prompt")
        if field not in FIELDS:
            raise ValueError(f"`{pair}`: a column can become {', '.join(FIELDS)}")
        out[normal(column)] = field
    return out


def columns(header: list[str], overrides: dict[str, str]) -> list[Column]:
    """Say what each header cell holds; `overrides` maps a normalised header to a field."""
    found = [guess(h) for h in header]
    for i, column in enumerate(found):
        wanted = overrides.get(normal(column.header))
        if wanted is not None:
            label = column.label if wanted == "option" else ""
            if wanted == "option" and not label:
                label = str(sum(1 for c in found[:i] if c.field == "option") + 1)
            found[i] = Column(column.header, wanted, label)
    return found


def unknown_overrides(header: list[str], overrides: dict[str, str]) -> list[str]:
    """Return the `--map` columns the header does not name."""
    names = {normal(h) for h in header}
    return [name for name in overrides if name not in names]


def looks_like_header(cells: list[str]) -> bool:
    """Tell whether a first row names a question column and an answer or option column."""
    fields = {guess(c).field for c in cells}
    return "prompt" in fields and bool(fields & {"answer", "option", "options"})


def describe(found: list[Column]) -> str:
    """Say what each column became, for the conversion report."""
    words = {
        "prompt": M_("the question"),
        "answer": M_("the right answer"),
        "option": M_("an option"),
        "wrong": M_("a wrong option"),
        "options": M_("the options (separated by |)"),
        "ignore": M_("not read"),
    }
    parts = [M_("`{header}` → {field}", header=c.header.strip() or "(empty)", field=words.get(c.field, c.field)) for c in found]
    return M_("columns: {columns}", columns=_joined(parts) if parts else "")


def _joined(parts: Sequence[str]) -> str:
    """Join `parts` with `; ` as nested translatable texts, halves first.

    Joined one by one, each step would copy the text so far and nest one level deeper: a header of
    20,000 columns took 7 GB and overflowed the stack when said. Halves keep it n log n and log n deep.
    """
    if len(parts) == 1:
        return parts[0]
    middle = len(parts) // 2
    return M_("{first}; {then}", first=_joined(parts[:middle]), then=_joined(parts[middle:]))
