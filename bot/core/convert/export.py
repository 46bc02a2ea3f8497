"""Write a pack back out as GIFT, Moodle XML or CSV, for the item types each format holds.

Each writer returns the text and a list of what it left out or could not carry, so the admin
knows what a round trip loses (hints in GIFT, per-choice feedback in CSV, code items everywhere).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

from bot.core.packs import AnyQuestion, BlanksQuestion, ChoiceQuestion, Pack, ShortQuestion
from bot.core.packs.models import BLANK
from bot.core.report.sheet import SheetWriter  # a cell that would start a formula gets a leading `'`

from .table import COLUMNS

EXPORT_FORMATS: tuple[str, ...] = ("gift", "moodle-xml", "csv")
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")  # what XML 1.0 cannot hold, even escaped


@dataclass
class Export:
    """An exported pack: the file's text and what did not make it across."""

    text: str
    written: int = 0
    left_out: list[tuple[str, str]] = field(default_factory=list)  # (question id, why)
    lost: list[str] = field(default_factory=list)  # what the format cannot hold, once each

    def lose(self, what: str) -> None:
        if what not in self.lost:
            self.lost.append(what)


def export_pack(pack: Pack, fmt: str) -> Export:
    """Write `pack` in `fmt` (one of EXPORT_FORMATS)."""
    writer = _WRITERS.get(fmt)
    if writer is None:
        raise ValueError(f"unknown export format `{fmt}`; known: {', '.join(EXPORT_FORMATS)}")
    return writer(pack)


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# --- GIFT ---------------------------------------------------------------------------------

def _gift_escape(text: str) -> str:
    text = text.replace("\\", "\\\\")
    for char in "~=#{}:":
        text = text.replace(char, "\\" + char)
    return text.replace("\r", "").replace("\n", "\\n")


def _gift(pack: Pack) -> Export:
    out = Export(text="")
    parts = [f"// QuizBot pack `{pack.pack}` version {pack.version}: {pack.title}\n// Written by quizbot pack export --format gift\n"]
    current_topic: str | None = None
    for q in pack.questions:
        body = _gift_answers(q, out)
        if body is None:
            continue
        if q.topic != current_topic and q.topic is not None:
            parts.append(f"$CATEGORY: $course$/top/{pack.topic_title(q.topic)}\n")
            current_topic = q.topic
        general = f"\n\t####{_gift_escape(q.explanation)}" if q.explanation else ""
        parts.append(f"::{_gift_escape(q.id)}::[markdown]{_gift_escape(q.prompt)}{{{body}{general}\n}}\n")
        out.written += 1
        if q.hint:
            out.lose("hints (GIFT has none)")
        if q.difficulty != "medium":
            out.lose("difficulty (GIFT has none)")
    out.text = "\n".join(parts)
    return out


def _gift_answers(q: AnyQuestion, out: Export) -> str | None:
    writer = _GIFT_BODIES.get(q.type)
    if writer is None:
        out.left_out.append((q.id, f"{q.type} items have no GIFT form"))
        return None
    return writer(q, out)


def _gift_choice(q: ChoiceQuestion, out: Export) -> str:
    lines = []
    right = sum(c.correct for c in q.choices)
    for c in q.choices:
        if not q.multiple:
            mark = "=" if c.correct else "~"
        else:
            mark = f"~%{_weight(100 / right)}%" if c.correct else "~%-100%"
        feedback = f"#{_gift_escape(c.feedback)}" if c.feedback else ""
        lines.append(f"\n\t{mark}{_gift_escape(c.text)}{feedback}")
    return "".join(lines)


def _gift_short(q: ShortQuestion, out: Export) -> str:
    if q.number is not None:
        extra = [a for a in q.accept if _numeric(a) and float(a) != q.number.value]
        if any(not _numeric(a) for a in q.accept):
            out.lose("text answers of items that also take a number (GIFT holds one or the other)")
        first = f"\n\t={_number_text(q.number.value)}:{_number_text(q.number.tolerance)}"
        return "#" + first + "".join(f"\n\t={a}:0" for a in extra)
    return "".join(f"\n\t={_gift_escape(a)}" for a in q.accept)


# Per question type (the pack format's `type`): the types GIFT can hold.
_GIFT_BODIES: dict[str, Callable[[Any, Export], str]] = {"choice": _gift_choice, "short": _gift_short}


def _weight(value: float) -> str:
    return f"{value:.5f}".rstrip("0").rstrip(".")


# --- Moodle XML ---------------------------------------------------------------------------

def _text_el(tag: str, text: str, indent: str = "    ", fmt: str = "markdown") -> str:
    return f'{indent}<{tag} format="{fmt}">\n{indent}  <text>{escape(text)}</text>\n{indent}</{tag}>\n'


def _moodle(pack: Pack) -> Export:
    out = Export(text="")
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n']
    current_topic: str | None = None
    for q in pack.questions:
        kind, body = _moodle_body(q, out)
        if kind is None:
            continue
        if q.topic is not None and q.topic != current_topic:
            current_topic = q.topic
            category = escape(f"$course$/top/{pack.topic_title(q.topic)}")
            parts.append(
                '  <question type="category">\n    <category>\n'
                f"      <text>{category}</text>\n    </category>\n  </question>\n"
            )
        head = (
            f'  <question type="{kind}">\n'
            f"    <name>\n      <text>{escape(q.id)}</text>\n    </name>\n"
            + _text_el("questiontext", _moodle_prompt(q))
            + _text_el("generalfeedback", q.explanation or "")
            + f"    <defaultgrade>{q.points}</defaultgrade>\n    <penalty>0</penalty>\n    <hidden>0</hidden>\n"
            f"    <idnumber>{escape(q.id)}</idnumber>\n"
        )
        hint = _text_el("hint", q.hint) if q.hint else ""
        tags = f"    <tags>\n      <tag><text>difficulty:{q.difficulty}</text></tag>\n    </tags>\n"
        parts.append(head + body + hint + tags + "  </question>\n")
        out.written += 1
    parts.append("</quiz>\n")
    out.text, dropped = _NOT_XML.subn("", "".join(parts))  # a YAML "\x0b" or "\e" loads, but breaks the XML
    if dropped:
        out.lose("control characters (XML cannot hold them; the rest of each text is kept)")
    return out


def _moodle_prompt(q: AnyQuestion) -> str:
    writer = _MOODLE_PROMPTS.get(q.type)
    return q.prompt if writer is None else writer(q)


def _moodle_blanks_prompt(q: BlanksQuestion) -> str:
    option_number = {option: i for i, option in enumerate(q.options, start=1)}
    code = BLANK.sub(lambda m: f"[[{option_number[q.answers[int(m.group(1))]]}]]", q.code)
    return f"{q.prompt}\n\n```\n{code.rstrip()}\n```"


def _answer_el(fraction: float, text: str, feedback: str | None, extra: str = "") -> str:
    return (
        f'    <answer fraction="{_weight(fraction)}" format="markdown">\n'
        f"      <text>{escape(text)}</text>\n"
        + _text_el("feedback", feedback or "", indent="      ")
        + extra
        + "    </answer>\n"
    )


def _moodle_body(q: AnyQuestion, out: Export) -> tuple[str | None, str]:
    writer = _MOODLE_BODIES.get(q.type)
    if writer is None:
        out.left_out.append((q.id, "code items are graded by a unittest file, which Moodle XML cannot hold"))
        return None, ""
    return writer(q, out)


def _moodle_choice(q: ChoiceQuestion, out: Export) -> tuple[str | None, str]:
    right = sum(c.correct for c in q.choices)
    body = (
        f"    <single>{'false' if q.multiple else 'true'}</single>\n"
        f"    <shuffleanswers>{'true' if q.shuffle else 'false'}</shuffleanswers>\n"
        "    <answernumbering>abc</answernumbering>\n"
    )
    for c in q.choices:
        fraction = (100 / right if c.correct else -100.0) if q.multiple else 100.0 if c.correct else 0.0
        body += _answer_el(fraction, c.text, c.feedback)
    return "multichoice", body


def _moodle_short(q: ShortQuestion, out: Export) -> tuple[str | None, str]:
    if q.number is not None:
        if any(not _numeric(a) for a in q.accept):
            out.lose("text answers of items that also take a number (Moodle's numerical type takes numbers)")
        values = [(q.number.value, q.number.tolerance)] + [
            (float(a), 0.0) for a in q.accept if _numeric(a) and float(a) != q.number.value
        ]
        body = "".join(
            _answer_el(100.0, _number_text(v), None, f"      <tolerance>{_number_text(t)}</tolerance>\n") for v, t in values
        )
        return "numerical", body
    body = "    <usecase>0</usecase>\n" + "".join(_answer_el(100.0, a.replace("*", "\\*"), None) for a in q.accept)
    return "shortanswer", body


def _moodle_blanks(q: BlanksQuestion, out: Export) -> tuple[str | None, str]:
    body = "    <shuffleanswers>1</shuffleanswers>\n" + "".join(
        f"    <selectoption>\n      <text>{escape(o)}</text>\n      <group>1</group>\n    </selectoption>\n"
        for o in q.options
    )
    return "gapselect", body


# Per question type: Moodle's question type and body; code items have no Moodle form.
_MOODLE_BODIES: dict[str, Callable[[Any, Export], tuple[str | None, str]]] = {
    "choice": _moodle_choice,
    "short": _moodle_short,
    "blanks": _moodle_blanks,
}
_MOODLE_PROMPTS: dict[str, Callable[[Any], str]] = {"blanks": _moodle_blanks_prompt}


# --- CSV ----------------------------------------------------------------------------------

def _bar(values: list[str]) -> str:
    return "|".join(v.replace("|", "\\|") for v in values)


def _csv(pack: Pack) -> Export:
    out = Export(text="")
    buffer = io.StringIO()
    writer = SheetWriter(buffer)
    writer.writerow(["id", *COLUMNS])
    for q in pack.questions:
        cells = _CSV_CELLS.get(q.type)
        if cells is None:
            out.left_out.append((q.id, "code items need a unittest file, which a CSV row cannot hold"))
            continue
        prompt, answer, options = cells(q, out)
        topic = pack.topic_title(q.topic) if q.topic else ""
        writer.writerow([q.id, q.type, topic, prompt, answer, options, q.hint or "", q.explanation or "", q.difficulty])
        out.written += 1
    out.text = buffer.getvalue()
    return out


def _csv_choice(q: ChoiceQuestion, out: Export) -> tuple[str, str, str]:
    if any(c.feedback for c in q.choices):
        out.lose("per-choice feedback (CSV has no column for it)")
    return q.prompt, _bar([c.text for c in q.choices if c.correct]), _bar([c.text for c in q.choices])


def _csv_short(q: ShortQuestion, out: Export) -> tuple[str, str, str]:
    values = list(q.accept)
    if q.number is not None:
        values.insert(0, f"{_number_text(q.number.value)}:{_number_text(q.number.tolerance)}")
    return q.prompt, _bar(values), ""


def _csv_blanks(q: BlanksQuestion, out: Export) -> tuple[str, str, str]:
    prompt = f"{q.prompt}\n\n```\n{q.code.rstrip()}\n```"
    return prompt, _bar([q.answers[n] for n in sorted(q.blanks())]), _bar(list(q.options))


# Per question type: the (prompt, answer, options) cells of its row; code items have no CSV form.
_CSV_CELLS: dict[str, Callable[[Any, Export], tuple[str, str, str]]] = {
    "choice": _csv_choice,
    "short": _csv_short,
    "blanks": _csv_blanks,
}

_WRITERS: dict[str, Callable[[Pack], Export]] = {"gift": _gift, "moodle-xml": _moodle, "csv": _csv}
