"""Code templates with numbered blanks, each filled from one shared menu of options."""

from __future__ import annotations

import random
import re

from bot.core import actions as ax
from bot.core.coderun import RunOutcome, RunRequest
from bot.core.errors import BadSubmission, StaleAction
from bot.core.i18n import M_, _, pgettext
from bot.core.model import ItemState
from bot.core.packs.fillings import describe
from bot.core.packs.models import BLANK, AnyQuestion, BlanksQuestion
from bot.core.replies import Button, Code, Control, InputRequest, Option, Select, Text

from ._text import letter
from .base import AddProblem, Changed, Context, Graded, Input, Make, Outcome, ProofJob, View, fingerprint
from .proving import why

MAX_BLANKS = 20


def _q(question: AnyQuestion) -> BlanksQuestion:
    assert isinstance(question, BlanksQuestion)
    return question


def chosen(question: BlanksQuestion, selections: dict[int, int]) -> dict[int, str]:
    """The options picked, by blank number (option indices become the options' text)."""
    return {n: question.options[i] for n, i in selections.items() if 0 <= i < len(question.options)}


def grade(question: BlanksQuestion, selections: dict[int, int]) -> dict[int, bool]:
    """Return, per blank in the order shown, whether its pick fits a right filling (key or `also_correct`)."""
    marks = question.marks(chosen(question, selections))
    return {n: marks.get(n, False) for n in question.blanks()}


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
    wrong_solutions = False
    racing = True
    sandboxed = False
    answered_by_text = False

    def prepare(self, question: AnyQuestion, item: ItemState, rng: random.Random) -> None:
        item.seen = self.seen(question)

    def seen(self, question: AnyQuestion) -> str | None:
        q = _q(question)  # picks are option indices: a new menu changes their meaning
        return fingerprint(q.code, *q.options)

    def view(self, question: AnyQuestion, item: ItemState, make: Make, *, final: bool) -> View:
        q = _q(question)
        parts: list[Text | Code] = [Code(template(q, item, reveal=final))]
        line = self._result_line(q, item) if final else ""
        if line:
            parts.append(Text(line))
        rows: list[tuple[Control, ...]] = []
        for number in q.blanks():
            picked = item.selections.get(number)
            options = tuple(Option(str(i), f"{letter(i)}. {text}", picked == i) for i, text in enumerate(q.options))
            menu = Select(make(ax.BLANK, number), _("Blank {n}").format(n=number), options, 1, 1, final, role="blank", number=number)
            rows.append((menu,))
        if not final:
            rows.append((Button(make(ax.CHECK), pgettext("button", "Check"), "primary", role="check"),))
        return View(parts=tuple(parts), rows=tuple(rows))

    def _result_line(self, q: BlanksQuestion, item: ItemState) -> str:
        """What the learner picked, when it differs from the answers the code now shows.

        The marks per blank are in the feedback of the last attempt; the answers in the code and
        the reveal: neither is repeated here.
        """
        picks = {n: chosen(q, item.selections).get(n, "—") for n in q.blanks()}
        if not item.selections or all(picks[n] == q.answers.get(n) for n in picks):
            return ""
        return _("Your picks:") + " " + " · ".join(f"[{n}] `{picked}`" for n, picked in picks.items())

    def form(self, question: AnyQuestion, make: Make) -> InputRequest | None:
        return None

    def text_verb(self, question: AnyQuestion, text: str, *, code_only: bool) -> str:
        raise BadSubmission(_("The current question is answered with its menus, not a message."))

    async def answer(self, question: AnyQuestion, item: ItemState, given: Input, ctx: Context) -> Outcome:
        q = _q(question)
        if given.verb == ax.BLANK:
            if not given.argument.isdigit() or int(given.argument) not in q.blanks():
                raise BadSubmission(_("That blank does not exist."))
            if not given.values or not given.values[0].isdigit() or int(given.values[0]) >= len(q.options):
                raise BadSubmission(_("That option does not exist."))
            item.selections[int(given.argument)] = int(given.values[0])
            return Changed()
        if given.verb != ax.CHECK:
            raise StaleAction()
        missing = [n for n in q.blanks() if n not in item.selections]
        if missing:
            raise BadSubmission(_("Fill every blank first: {blanks} still empty.").format(blanks=", ".join(f"[{n}]" for n in missing)))
        per_blank = grade(q, item.selections)
        answer = ", ".join(f"{n}={q.options[item.selections[n]]}" for n in q.blanks())
        detail = " · ".join(f"[{n}] {'✅' if ok else '❌'}" for n, ok in per_blank.items())
        return Graded(q.is_right(chosen(q, item.selections)), answer, (detail,))

    def graded_notes(self, question: AnyQuestion, item: ItemState) -> tuple[str, ...]:
        return ()

    def reveal(self, question: AnyQuestion) -> str:
        q = _q(question)
        return _("The answer:") + " " + ", ".join(f"[{n}] `{q.answers[n]}`" for n in q.blanks())

    def check(self, question: AnyQuestion, add: AddProblem) -> None:
        q = _q(question)
        blanks = q.blanks()
        if not blanks:
            add(("code",), M_("no blanks; mark them {first}, {second} ...", first="{{1}}", second="{{2}}"))
        for number in blanks:
            if number not in q.answers:
                add(("answers",), M_("blank {blank} has no answer", blank=f"{{{{{number}}}}}"))
        for number, answer in q.answers.items():
            if number not in blanks:
                add(("answers", number), M_("there is no blank {blank} in `code`", blank=f"{{{{{number}}}}}"))
            if answer not in q.options:
                add(("answers", number), M_("`{answer}` is not one of the options", answer=answer))
        if len(blanks) > MAX_BLANKS:
            add(("code",), M_("at most {most} blanks", most=MAX_BLANKS))
        if BLANK.search(q.prompt):
            add(("prompt",), M_("blanks belong in `code`, not the prompt"))

    def proof(self, question: AnyQuestion) -> list[ProofJob]:
        q = _q(question)
        if q.verify != "run":
            return []
        jobs = [
            ProofJob(
                RunRequest(q.filled()),
                lambda o: None if o.status == "passed" else M_("with its answers filled in the code does not run ({why})", why=why(o)),
            )
        ]
        for filling in q.also_correct:

            def also_runs(o: RunOutcome, shown: str = describe(q, filling)) -> str | None:
                return None if o.status == "passed" else M_("the `also_correct` filling {shown} does not run ({why})", shown=shown, why=why(o))

            jobs.append(ProofJob(RunRequest(q.filled(filling)), also_runs))
        return jobs

    def graded_run(self, question: AnyQuestion, code: str) -> RunRequest:
        raise TypeError("blanks questions are not answered with code")

    def checked_fillings(self, question: AnyQuestion) -> BlanksQuestion | None:
        q = _q(question)
        return q if q.verify == "run" else None

    def longest_option_score(self, question: AnyQuestion) -> float | None:
        return None

    def key_lines(self, question: AnyQuestion) -> list[str]:
        """The template's lines that hold a blank, filled with the key."""
        q = _q(question)
        template = q.code.splitlines()
        filled = q.filled().splitlines()
        if len(template) != len(filled):  # an answer holds a line break: give every filled line
            return [line.strip() for line in filled if line.strip()]
        return [line.strip() for raw, line in zip(template, filled, strict=True) if BLANK.search(raw) and line.strip()]
