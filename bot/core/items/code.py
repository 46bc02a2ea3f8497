"""Code exercises: the learner's code runs in the sandbox against the pack's unittest file."""

from __future__ import annotations

import random

from bot.core import actions as ax
from bot.core.coderun import RunOutcome, RunRequest
from bot.core.errors import StaleAction
from bot.core.i18n import M_, _, pgettext
from bot.core.model import ItemState
from bot.core.packs.models import AnyQuestion, BlanksQuestion, CodeQuestion
from bot.core.replies import Button, Code, InputRequest, Text, Tone

from . import codetext
from .base import AddProblem, Context, Graded, Input, Make, NotAnAnswer, Outcome, ProofJob, View
from .proving import why
from .report import failing_sentences, is_syntax_error, run_report

FILE_FIELDS = ("test_file", "solution_file")


def _q(question: AnyQuestion) -> CodeQuestion:
    assert isinstance(question, CodeQuestion)
    return question


def request(question: CodeQuestion, code: str, owner: str | None = None) -> RunRequest:
    limits = question.limits
    return RunRequest(
        code=code,
        test=question.test,
        owner=owner,
        time_s=limits.time_s if limits else None,
        memory_mb=limits.memory_mb if limits else None,
    )


class CodeType:
    name = "code"
    file_fields: tuple[str, ...] = FILE_FIELDS
    wrong_solutions = True
    racing = False
    sandboxed = True
    answered_by_text = True

    def prepare(self, question: AnyQuestion, item: ItemState, rng: random.Random) -> None:
        return None

    def seen(self, question: AnyQuestion) -> str | None:
        return None

    def view(self, question: AnyQuestion, item: ItemState, make: Make, *, final: bool) -> View:
        q = _q(question)
        if final:
            return View()
        parts: list[Text | Code] = []
        if q.starter.strip():
            parts += [Text(_("Starter code:")), Code(q.starter.rstrip("\n"))]
        parts.append(Text(_("_Press Answer, or send your code as a Python code block._")))
        return View(parts=tuple(parts), rows=((Button(make(ax.ANSWER), pgettext("button", "Answer"), "primary", role="answer"),),))

    def form(self, question: AnyQuestion, make: Make) -> InputRequest | None:
        return InputRequest(make(ax.CODE_FORM), _("Your code"), _("Python code"), "code", initial=_q(question).starter)

    def text_verb(self, question: AnyQuestion, text: str, *, code_only: bool) -> str:
        return ax.CODE_FORM

    async def answer(self, question: AnyQuestion, item: ItemState, given: Input, ctx: Context) -> Outcome:
        q = _q(question)
        if given.verb not in (ax.CODE_FORM, ax.SHORT_FORM):
            raise StaleAction()
        code = codetext.check(codetext.code_of(given.values[0] if given.values else ""), limit=ctx.max_code_bytes)
        outcome = await ctx.run(request(q, code, ctx.owner_key))
        report = tuple(run_report(outcome, graded=True, code=code))
        if outcome.status == "rejected" or is_syntax_error(outcome, code):
            # Not an answer: the learner keeps the attempt (and gets no hint meant for a wrong answer).
            note = Text(_("_This did not count as an attempt: fix it and send it again._"))
            return NotAnAnswer(report + ((note,) if outcome.status != "rejected" else ()), Tone.WARNING)
        return Graded(outcome.status == "passed", code, report=report, detail=failing_sentences(outcome))

    def graded_notes(self, question: AnyQuestion, item: ItemState) -> tuple[str, ...]:
        return ()

    def reveal(self, question: AnyQuestion) -> str:
        return ""  # a model solution would give the exercise away; the explanation says what matters

    def check(self, question: AnyQuestion, add: AddProblem) -> None:
        q = _q(question)
        if (q.test is None) == (q.test_file is None):
            add((), M_("give exactly one of `test` and `test_file`"))
        if (q.solution is None) == (q.solution_file is None):
            add((), M_("give exactly one of `solution` and `solution_file`"))
        if q.test is not None and "user_code" not in q.test:
            add(("test",), M_("the test must import `user_code`"))

    def graded_run(self, question: AnyQuestion, code: str) -> RunRequest:
        return request(_q(question), code)

    def proof(self, question: AnyQuestion) -> list[ProofJob]:
        q = _q(question)

        def solution_passes(o: RunOutcome) -> str | None:
            return None if o.status == "passed" else M_("the solution does not pass its test ({why})", why=why(o))

        def starter_fails(o: RunOutcome) -> str | None:
            return M_("the starter already passes every test; a starter must not be an answer") if o.status == "passed" else None

        return [ProofJob(request(q, q.solution or ""), solution_passes), ProofJob(request(q, q.starter), starter_fails)]

    def checked_fillings(self, question: AnyQuestion) -> BlanksQuestion | None:
        return None

    def longest_option_score(self, question: AnyQuestion) -> float | None:
        return None

    def key_lines(self, question: AnyQuestion) -> list[str]:
        """The solution's lines without blank lines, comments, imports and the starter's own lines."""
        q = _q(question)
        starter = {" ".join(line.split()) for line in q.starter.splitlines()}
        lines = (line.strip() for line in (q.solution or "").splitlines())
        return [
            line for line in lines
            if line and not line.startswith(("#", "import ", "from ")) and " ".join(line.split()) not in starter
        ]
