"""What every format hands to the builder: drafts of items, items left out, and assumptions.

A format reader never writes ids, topics ids or files; it describes each item (`Draft`) with the
line it starts on, and the builder turns the drafts into a pack. The item builders here check
what the pack format needs and raise `Unmappable` with a reason a person can act on.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from bot.core.i18n import M_

from .result import Assumption, ConvertError, NotConverted

MAX_ITEMS = 5000
"""The most items one conversion turns into a pack (checking a pack takes a few ms per item)."""
MAX_LEFT_OUT = 5000
"""The most items a file may hold that cannot be converted; past it the file is refused."""
MAX_LABEL = 80  # a report names an item and its source type in at most this many characters
MAX_CHOICES = 25
MAX_OPTION = 80
MAX_TYPED_ANSWER = 99
"""The longest answer a learner is asked to type back (compared after trimming and case-folding)."""


class Unmappable(Exception):
    """This item cannot become a question; the message says why."""


@dataclass
class Draft:
    """One item read from the source: the question's fields without id and topic."""

    line: int
    source_type: str
    name: str | None
    fields: dict[str, Any]
    topic: str | None = None  # the topic's title as the source names it
    test: str | None = None  # a code item's unittest file


@dataclass
class Sink:
    """Collect what a format reader found."""

    source: str
    drafts: list[Draft] = field(default_factory=list)
    skipped: list[NotConverted] = field(default_factory=list)
    authors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # for the pack's description
    column_map: dict[str, str] = field(default_factory=dict)  # a sheet's `--map` overrides, by normalised header
    _assumed: dict[str, dict[int, None]] = field(default_factory=dict)  # lines kept in order, looked up in O(1)

    def add(self, draft: Draft) -> None:
        """Keep `draft`; refuse the file at the first item past MAX_ITEMS, before reading the rest."""
        if len(self.drafts) >= MAX_ITEMS:
            raise ConvertError(
                self.source, draft.line, M_("the file holds more than {most} items; a pack holds at most {most}: split the file", most=MAX_ITEMS)
            )
        self.drafts.append(draft)

    def skip(self, line: int, source_type: str, label: str, reason: str) -> None:
        """List an item left out; refuse the file when more than MAX_LEFT_OUT are (it is not what it claims to be)."""
        if len(self.skipped) >= MAX_LEFT_OUT:
            raise ConvertError(
                self.source, line,
                M_("more than {most} items cannot be converted; the first, on line {line}: {reason}",
                   most=MAX_LEFT_OUT, line=self.skipped[0].line, reason=self.skipped[0].reason),
            )
        self.skipped.append(
            NotConverted(line=line, label=_clip(label) or "(no text)", source_type=_clip(source_type), reason=reason)
        )

    def assume(self, message: str, line: int | None = None) -> None:
        lines = self._assumed.setdefault(message, {})
        if line is not None:
            lines[line] = None

    def assumptions(self) -> tuple[Assumption, ...]:
        return tuple(Assumption(message, tuple(lines)) for message, lines in self._assumed.items())


def _clip(text: str) -> str:
    """Keep a name taken from the file short: a hostile file's 5 MB attribute must not fill the report."""
    text = text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"
    return text.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate (a JSON escape) prints as `?`


def typed_answer(answer: str) -> str:
    """Return `answer` if a learner can be asked to type it; raise Unmappable for a long or multi-line one."""
    text = answer.strip()
    if "\n" in text or len(text) > MAX_TYPED_ANSWER:
        several = M_("the answer is {n} characters on several lines; a learner would have to type it back word for word: "
                     "shorten it to under 100 characters, or make the item a choice question", n=len(text))
        one = M_("the answer is {n} characters; a learner would have to type it back word for word: "
                 "shorten it to under 100 characters, or make the item a choice question", n=len(text))
        raise Unmappable(several if "\n" in text else one)
    return text


def _base(kind: str, prompt: str, hint: str | None, explanation: str | None, difficulty: str | None) -> dict[str, Any]:
    prompt = prompt.strip()
    if not prompt:
        raise Unmappable(M_("the question has no text"))
    fields: dict[str, Any] = {"type": kind, "difficulty": difficulty or "medium", "prompt": prompt}
    if hint and hint.strip():
        fields["hint"] = hint.strip()
    if explanation and explanation.strip():
        fields["explanation"] = explanation.strip()
    return fields


def choice_fields(
    prompt: str,
    choices: Sequence[tuple[str, bool, str | None]],
    *,
    multiple: bool,
    shuffle: bool = True,
    hint: str | None = None,
    explanation: str | None = None,
    difficulty: str | None = None,
) -> dict[str, Any]:
    """Build a choice item from (text, correct, feedback) triples."""
    fields = _base("choice", prompt, hint, explanation, difficulty)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for text, correct, feedback in choices:
        text = text.strip()
        if not text:
            raise Unmappable(M_("a choice has no text"))
        if text in seen:
            raise Unmappable(M_("two choices read `{text}`", text=text))
        seen.add(text)
        entry: dict[str, Any] = {"text": text}
        if correct:
            entry["correct"] = True
        if feedback and feedback.strip():
            entry["feedback"] = feedback.strip()
        out.append(entry)
    if len(out) < 2:
        raise Unmappable(M_("a choice question needs at least two choices"))
    if len(out) > MAX_CHOICES:
        raise Unmappable(M_("{n} choices; QuizBot shows at most {most}", n=len(out), most=MAX_CHOICES))
    right = sum(1 for c in out if c.get("correct"))
    if right == 0:
        raise Unmappable(M_("no choice is marked right"))
    if not multiple and right != 1:
        raise Unmappable(M_("{right} choices are marked right in a single-answer question", right=right))
    fields["choices"] = out
    if multiple:
        fields["multiple"] = True
    if not shuffle:
        fields["shuffle"] = False
    return fields


def short_fields(
    prompt: str,
    accept: Iterable[str],
    *,
    number: tuple[float, float] | None = None,
    hint: str | None = None,
    explanation: str | None = None,
    difficulty: str | None = None,
) -> dict[str, Any]:
    """Build a short-answer item from accepted texts and/or a number with its tolerance."""
    fields = _base("short", prompt, hint, explanation, difficulty)
    answers = list(dict.fromkeys(c for c in (" ".join(a.split()) for a in accept) if c))  # a set keeps it linear
    if not answers and number is None:
        raise Unmappable(M_("no right answer"))
    if answers:
        fields["accept"] = answers
    if number is not None:
        value, tolerance = number
        if not (math.isfinite(value) and math.isfinite(tolerance)):
            raise Unmappable(M_("the number is not finite"))
        fields["number"] = {"value": _plain(value), "tolerance": _plain(abs(tolerance))}
    return fields


def blanks_fields(
    prompt: str,
    code: str,
    options: Sequence[str],
    answers: dict[int, str],
    *,
    hint: str | None = None,
    explanation: str | None = None,
    difficulty: str | None = None,
) -> dict[str, Any]:
    """Build a fill-in-the-blanks item: `code` marks blanks {{n}}, one menu of `options`."""
    fields = _base("blanks", prompt, hint, explanation, difficulty)
    distinct: list[str] = []
    for option in options:
        option = option.strip()
        if not option:
            raise Unmappable(M_("an option has no text"))
        if len(option) > MAX_OPTION:
            raise Unmappable(M_("the option `{start}…` is longer than {most} characters", start=option[:30], most=MAX_OPTION))
        if option not in distinct:
            distinct.append(option)
            if len(distinct) > MAX_CHOICES:
                raise Unmappable(M_("more than {most} options; a menu holds at most {most}", most=MAX_CHOICES))
    for number, answer in answers.items():
        if answer.strip() not in distinct:
            raise Unmappable(M_("blank {number}'s answer `{answer}` is not among the options", number=number, answer=answer))
    if len(distinct) < 2:
        raise Unmappable(M_("the blanks offer fewer than two different options"))
    if len(distinct) > MAX_CHOICES:
        raise Unmappable(M_("{n} options; a menu holds at most {most}", n=len(distinct), most=MAX_CHOICES))
    fields["code"] = code.rstrip() + "\n"
    fields["options"] = distinct
    fields["answers"] = {n: a.strip() for n, a in sorted(answers.items())}
    return fields


def code_fields(
    prompt: str,
    *,
    solution: str,
    starter: str = "",
    hint: str | None = None,
    explanation: str | None = None,
    difficulty: str | None = None,
    limits: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Build a code item; the builder adds `test_file`."""
    fields = _base("code", prompt, hint, explanation, difficulty)
    if not solution.strip():
        raise Unmappable(M_("no sample answer; a code item needs a solution that passes its tests"))
    fields["starter"] = starter
    fields["solution"] = solution if solution.endswith("\n") else solution + "\n"
    if limits:
        fields["limits"] = limits
    return fields


def add_explanation(fields: dict[str, Any], text: str | None) -> None:
    """Add `text` after the explanation already there (a right answer's feedback, then general feedback)."""
    text = (text or "").strip()
    if not text:
        return
    before = str(fields.get("explanation", "")).strip()
    if text == before or (before and text in before.split("\n\n")):
        return
    fields["explanation"] = f"{before}\n\n{text}" if before else text


def number_range(low: str, high: str) -> tuple[float, float]:
    """Return the middle and half-width of `low..high`, exact in decimal so both ends stay inside."""
    a, b = Decimal(low.strip()), Decimal(high.strip())
    return float((a + b) / 2), float(abs(b - a) / 2)


def _plain(value: float) -> float | int:
    return int(value) if value.is_integer() and abs(value) < 2**53 else value
