"""Short answers: a word, a number or a line, typed in a form or sent as a message."""

from __future__ import annotations

import math
import random
import re
import unicodedata
from decimal import Decimal
from functools import lru_cache

from babel.numbers import get_decimal_symbol

from bot.core import actions as ax
from bot.core.coderun import RunOutcome, RunRequest
from bot.core.errors import BadSubmission, StaleAction
from bot.core.i18n import M_, _, current, pgettext
from bot.core.model import ItemState
from bot.core.packs.models import AnyQuestion, BlanksQuestion, ShortQuestion
from bot.core.replies import Button, InputRequest
from bot.core.words import blank

from .answers import matches, normalize, unwrap, values
from .base import AddProblem, Context, Graded, Input, Make, Outcome, ProofJob, View
from .proving import first_code_block, why

MAX_ANSWER = 500  # characters: a short answer is a word, a number or a line
_DECIMAL_COMMA = re.compile(r"[-+]?\d+,\d+")


def _q(question: AnyQuestion) -> ShortQuestion:
    assert isinstance(question, ShortQuestion)
    return question


def is_right(question: ShortQuestion, answer: str) -> bool:
    answer = "".join(char for char in answer if unicodedata.category(char) != "Cf")  # a zero-width space, a BOM: unseen, not typed
    if not normalize(answer):
        return False
    exact = question.exact
    point = None if exact else decimal_point(answer)
    given = (answer,) if point is None else (answer, point)
    if any(matches(text, accepted, exact=exact) for text in given for accepted in question.accept):
        return True
    if question.number is not None:
        got = _number(point or answer, exact=exact)
        if got is not None:
            return within(got, question.number.value, question.number.tolerance)
    return False


def within(got: float, value: float, tolerance: float) -> bool:
    """Tell whether `got` is within `tolerance` of `value`, both ends included.

    Compared in decimal, as the numbers were written: in binary floating point 3.141 lies a hair
    outside 3.1415 ± 0.0005, which would refuse an answer Moodle accepts.
    """
    if not (math.isfinite(got) and math.isfinite(value) and math.isfinite(tolerance)):
        return got == value
    return abs(Decimal(repr(got)) - Decimal(repr(value))) <= Decimal(repr(tolerance))


def decimal_point(answer: str) -> str | None:
    """The answer with its decimal comma as a point, when it is one number written with a decimal comma; else None.

    A comma before other than three digits is a decimal comma in any language (`2,5`, `6,0`: nobody
    writes 25 as `2,5`); before exactly three (`1,234`) it is one only for a learner whose language
    writes decimals with a comma (German, Spanish), and groups thousands for the others.
    """
    text = unwrap(answer)
    if _DECIMAL_COMMA.fullmatch(text) is None:
        return None
    if len(text) - text.index(",") - 1 == 3 and not _comma_decimals(current()):
        return None
    return text.replace(",", ".")


@lru_cache(maxsize=8)
def _comma_decimals(language: str) -> bool:
    """Whether `language` writes decimals with a comma."""
    try:
        return bool(get_decimal_symbol(language) == ",")
    except Exception:  # an unknown language: as English does
        return False


def _number(answer: str, *, exact: bool) -> float | None:
    text = answer.strip() if exact else unwrap(answer)
    try:
        return float(text.replace(",", "") if not exact else text)
    except ValueError:
        pass
    if exact:
        return None
    got = values(text)
    return got if isinstance(got, float) else None


class ShortType:
    name = "short"
    file_fields: tuple[str, ...] = ()
    wrong_solutions = False
    racing = True
    sandboxed = False
    answered_by_text = True

    def prepare(self, question: AnyQuestion, item: ItemState, rng: random.Random) -> None:
        return None

    def seen(self, question: AnyQuestion) -> str | None:
        return None

    def view(self, question: AnyQuestion, item: ItemState, make: Make, *, final: bool) -> View:
        if final:
            return View()
        return View(rows=((Button(make(ax.ANSWER), pgettext("button", "Answer"), "primary", role="answer"),),))

    def form(self, question: AnyQuestion, make: Make) -> InputRequest | None:
        return InputRequest(make(ax.SHORT_FORM), _("Your answer"), pgettext("button", "Answer"), "short", max_length=MAX_ANSWER)

    def text_verb(self, question: AnyQuestion, text: str, *, code_only: bool) -> str:
        if code_only:
            raise BadSubmission(_("The current question wants a short answer: press Answer."))
        return ax.SHORT_FORM

    async def answer(self, question: AnyQuestion, item: ItemState, given: Input, ctx: Context) -> Outcome:
        q = _q(question)
        if given.verb != ax.SHORT_FORM:
            raise StaleAction()
        answer = (given.values[0] if given.values else "").strip()
        if blank(answer):  # nothing to see: only spaces, or a zero-width space and the like
            raise BadSubmission(_("The answer is empty."))
        if len(answer) > MAX_ANSWER:
            raise BadSubmission(
                _("That answer is longer than {n} characters; a short answer is a word, a number or a line.").format(
                    n=MAX_ANSWER
                )
            )
        return Graded(is_right(q, answer), answer)

    def graded_notes(self, question: AnyQuestion, item: ItemState) -> tuple[str, ...]:
        return ()

    def reveal(self, question: AnyQuestion) -> str:
        q = _q(question)
        if q.accept:
            return _("The answer:") + f" `{q.accept[0]}`"
        if q.number is not None:
            return _("The answer:") + f" `{q.number.value:g}`"
        return ""

    def check(self, question: AnyQuestion, add: AddProblem) -> None:
        q = _q(question)
        if not q.accept and q.number is None:
            add((), M_("a short question needs `accept` or `number`"))
        for j, accepted in enumerate(q.accept):
            if blank(accepted):  # the form refuses such an answer as empty: this entry could never be matched
                add(("accept", j), M_("only spaces or invisible characters; no answer a learner types can match it"))
        if q.verify == "output":
            if not q.accept:
                add(("verify",), M_("`output` needs `accept` (its first entry is what must print)"))
            if "```" not in q.prompt:
                add(("verify",), M_("`output` needs a fenced code block in the prompt"))

    def proof(self, question: AnyQuestion) -> list[ProofJob]:
        q = _q(question)
        if q.verify != "output":
            return []
        expected = q.accept[0] if q.accept else ""

        def judge(o: RunOutcome) -> str | None:
            if o.status != "passed":
                return M_("the prompt's code does not run ({why})", why=why(o))
            if normalize(o.stdout) != normalize(expected):
                return M_("the prompt's code prints {printed}, not accept[0] {expected}", printed=repr(o.stdout.strip()[:200]), expected=repr(expected))
            return None

        return [ProofJob(RunRequest(first_code_block(q.prompt) or ""), judge)]

    def checked_fillings(self, question: AnyQuestion) -> BlanksQuestion | None:
        return None

    def longest_option_score(self, question: AnyQuestion) -> float | None:
        return None

    def key_lines(self, question: AnyQuestion) -> list[str]:
        return []

    def graded_run(self, question: AnyQuestion, code: str) -> RunRequest:
        raise TypeError(f"{self.name} questions are not answered with code")
