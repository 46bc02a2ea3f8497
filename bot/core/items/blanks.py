"""Code templates with numbered blanks, each filled from one shared menu of options."""

from __future__ import annotations

import random
import re

from bot.core import actions as ax
from bot.core.errors import BadSubmission, StaleAction
from bot.core.model import ItemState
from bot.core.packs.models import BLANK, AnyQuestion, BlanksQuestion
from bot.core.ports import RunRequest
from bot.core.replies import Button, Code, Control, InputRequest, Option, Select, Text

from ._text import letter
from .base import AddProblem, Changed, Context, Graded, Input, Make, Outcome, ProofJob, View
from .proving import why

MAX_BLANKS = 20


def _q(question: AnyQuestion) -> BlanksQuestion:
    assert isinstance(question, BlanksQuestion)
    return question


def grade(question: BlanksQuestion, selections: dict[int, int]) -> dict[int, bool]:
    """Return, per blank in the order shown, whether the selected option is the right one."""
    result: dict[int, bool] = {}
    for number in question.blanks():
        index = selections.get(number)
        chosen = question.options[index] if index is not None and 0 <= index < len(question.options) else None
        result[number] = chosen == question.answers.get(number)
    return result


def template(question: BlanksQuestion, item: ItemState, *, reveal: bool = False) -> str:
    """The code with each blank shown as `[n]`, `[n: picked]`, or (revealed) its answer."""

    def fill(match: re.Match[str]) -> str:
        number = int(match.group(1))
        if reveal:
            return question.answers[number]
        index = item.selections.get(number)
        if index is not None and 0 <= index < len(question.options):
            return f"[{number}: {question.options[index]}]"
        return f"[{number}]"

    return BLANK.sub(fill, question.code).rstrip("\n")


class BlanksType:
    name = "blanks"
    file_fields: tuple[str, ...] = ()
    racing = True
    answered_by_text = False

    def prepare(self, question: AnyQuestion, item: ItemState, rng: random.Random) -> None:
        return None

    def view(self, question: AnyQuestion, item: ItemState, make: Make, *, final: bool) -> View:
        q = _q(question)
        parts: list[Text | Code] = [Code(template(q, item, reveal=final))]
        if final:
            parts.append(Text(self._result_line(q, item)))
        rows: list[tuple[Control, ...]] = []
        for number in q.blanks():
            picked = item.selections.get(number)
            options = tuple(Option(str(i), f"{letter(i)}. {text}", picked == i) for i, text in enumerate(q.options))
            menu = Select(make(ax.BLANK, number), f"Blank {number}", options, 1, 1, final, role="blank", number=number)
            rows.append((menu,))
        if not final:
            rows.append((Button(make(ax.CHECK), "Check", "primary", role="check"),))
        return View(parts=tuple(parts), rows=tuple(rows))

    def _result_line(self, q: BlanksQuestion, item: ItemState) -> str:
        bits = []
        for number, ok in grade(q, item.selections).items():
            index = item.selections.get(number)
            picked = q.options[index] if index is not None and index < len(q.options) else "—"
            bits.append(f"[{number}] `{picked}` " + ("✅" if ok else f"❌ (answer: `{q.answers[number]}`)"))
        return " · ".join(bits)

    def form(self, question: AnyQuestion, make: Make) -> InputRequest | None:
        return None

    def text_verb(self, question: AnyQuestion, text: str, *, code_only: bool) -> str:
        raise BadSubmission("The current question is answered with its menus, not a message.")

    async def answer(self, question: AnyQuestion, item: ItemState, given: Input, ctx: Context) -> Outcome:
        q = _q(question)
        if given.verb == ax.BLANK:
            if not given.argument.isdigit() or int(given.argument) not in q.blanks():
                raise BadSubmission("That blank does not exist.")
            if not given.values or not given.values[0].isdigit() or int(given.values[0]) >= len(q.options):
                raise BadSubmission("That option does not exist.")
            item.selections[int(given.argument)] = int(given.values[0])
            return Changed()
        if given.verb != ax.CHECK:
            raise StaleAction()
        missing = [n for n in q.blanks() if n not in item.selections]
        if missing:
            raise BadSubmission("Fill every blank first: " + ", ".join(f"[{n}]" for n in missing) + " still empty.")
        per_blank = grade(q, item.selections)
        answer = ", ".join(f"{n}={q.options[item.selections[n]]}" for n in q.blanks())
        detail = " · ".join(f"[{n}] {'✅' if ok else '❌'}" for n, ok in per_blank.items())
        return Graded(all(per_blank.values()), answer, (detail,))

    def reveal(self, question: AnyQuestion) -> str:
        q = _q(question)
        return "The answer: " + ", ".join(f"[{n}] `{q.answers[n]}`" for n in q.blanks())

    def check(self, question: AnyQuestion, add: AddProblem) -> None:
        q = _q(question)
        blanks = q.blanks()
        if not blanks:
            add(("code",), "no blanks; mark them {{1}}, {{2}} ...")
        for number in blanks:
            if number not in q.answers:
                add(("answers",), f"blank {{{{{number}}}}} has no answer")
        for number, answer in q.answers.items():
            if number not in blanks:
                add(("answers", number), f"there is no blank {{{{{number}}}}} in `code`")
            if answer not in q.options:
                add(("answers", number), f"`{answer}` is not one of the options")
        if len(blanks) > MAX_BLANKS:
            add(("code",), f"at most {MAX_BLANKS} blanks")
        if BLANK.search(q.prompt):
            add(("prompt",), "blanks belong in `code`, not the prompt")

    def proof(self, question: AnyQuestion) -> list[ProofJob]:
        q = _q(question)
        if q.verify != "run":
            return []
        return [
            ProofJob(
                RunRequest(q.filled()),
                lambda o: None if o.status == "passed" else "with its answers filled in the code does not run (" + why(o) + ")",
            )
        ]
