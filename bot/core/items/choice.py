"""Multiple choice, with one right choice (buttons) or several (select all that apply)."""

from __future__ import annotations

import random

from bot.core import actions as ax
from bot.core.coderun import RunRequest
from bot.core.errors import BadSubmission, StaleAction
from bot.core.i18n import M_, _, pgettext
from bot.core.model import ItemState
from bot.core.packs.models import AnyQuestion, BlanksQuestion, ChoiceQuestion
from bot.core.replies import Button, ButtonStyle, Control, InputRequest, Option, Select, Text
from bot.core.words import blank

from ._text import clip, letter
from .base import AddProblem, Changed, Context, Graded, Input, Make, Outcome, ProofJob, View, fingerprint

# Past this many choices a menu reads better than a wall of lettered buttons.
MENU_ABOVE = 20


def _q(question: AnyQuestion) -> ChoiceQuestion:
    assert isinstance(question, ChoiceQuestion)
    return question


def display_order(question: ChoiceQuestion, item: ItemState) -> list[int]:
    """Return the original choice indices in the order the learner sees them."""
    if item.order and sorted(item.order) == list(range(len(question.choices))):
        return item.order
    return list(range(len(question.choices)))


def picked_feedback(question: ChoiceQuestion, item: ItemState) -> tuple[str, ...]:
    """Each picked choice's own feedback, the right one's too (GIFT `=right #why`, Moodle's per-answer feedback).

    Read from the item's state (`picked` holds shown indices), so a redraw of the graded item (`QuizDesk.answered`)
    says what its grade said.
    """
    order = display_order(question, item)
    choices = [question.choices[order[s]] for s in item.picked if 0 <= s < len(order)]
    return tuple(c.feedback for c in choices if c.feedback)


def is_right(question: ChoiceQuestion, chosen: set[int]) -> bool:
    """Grade by original indices: exactly the correct choices, no more, no fewer."""
    return chosen == {i for i, c in enumerate(question.choices) if c.correct}


class ChoiceType:
    name = "choice"
    file_fields: tuple[str, ...] = ()
    wrong_solutions = False
    racing = True
    sandboxed = False
    answered_by_text = False

    def prepare(self, question: AnyQuestion, item: ItemState, rng: random.Random) -> None:
        q = _q(question)
        item.order = list(range(len(q.choices)))
        if q.shuffle:
            rng.shuffle(item.order)
        item.seen = self.seen(q)

    def seen(self, question: AnyQuestion) -> str | None:
        q = _q(question)  # the choices as the learner sees and answers them
        return fingerprint(str(q.multiple), *(f"{c.correct:d}{c.text}" for c in q.choices))

    def view(self, question: AnyQuestion, item: ItemState, make: Make, *, final: bool) -> View:
        q = _q(question)
        order = display_order(q, item)
        chosen = set(item.picked)
        lines = []
        for shown, original in enumerate(order):
            mark = ""
            if final:
                if q.choices[original].correct:
                    mark = " ✅"
                elif shown in chosen:
                    mark = " ❌"
            elif q.multiple and shown in chosen:
                mark = " ☑️"
            lines.append(f"**{letter(shown)}.** {q.choices[original].text}{mark}")
        if q.multiple and not final:
            lines.append(_("_Select all that apply, then press Check._"))
        rows: list[tuple[Control, ...]] = []
        if q.multiple:
            options = tuple(
                Option(str(shown), f"{letter(shown)}. {clip(q.choices[o].text, 70)}", shown in chosen)
                for shown, o in enumerate(order)
            )
            rows.append((Select(make(ax.MULTI), _("Select all that apply"), options, 1, len(options), final, role="multi"),))
            if not final:
                rows.append((Button(make(ax.CHECK), pgettext("button", "Check"), "primary", role="check"),))
        elif len(order) > MENU_ABOVE:
            options = tuple(Option(str(shown), f"{letter(shown)}. {clip(q.choices[o].text, 70)}") for shown, o in enumerate(order))
            rows.append((Select(make(ax.CHOOSE), _("Pick one"), options, 1, 1, final, role="choice"),))
        else:
            buttons: list[Control] = []
            for shown, original in enumerate(order):
                style: ButtonStyle = "secondary"
                if final and q.choices[original].correct:
                    style = "success"
                elif final and shown in chosen:
                    style = "danger"
                text = q.choices[original].text
                buttons.append(Button(make(ax.CHOOSE, shown), letter(shown), style, final, text, role="choice"))
            rows.append(tuple(buttons))
        return View(parts=(Text("\n".join(lines)),), rows=tuple(rows))

    def form(self, question: AnyQuestion, make: Make) -> InputRequest | None:
        return None

    def text_verb(self, question: AnyQuestion, text: str, *, code_only: bool) -> str:
        raise BadSubmission(_("The current question is answered with its buttons, not a message."))

    async def answer(self, question: AnyQuestion, item: ItemState, given: Input, ctx: Context) -> Outcome:
        q = _q(question)
        order = display_order(q, item)
        if given.verb == ax.MULTI and q.multiple:
            item.picked = sorted({int(v) for v in given.values if v.isdigit() and int(v) < len(order)})
            return Changed()
        if given.verb == ax.CHECK and q.multiple:
            if not item.picked:
                raise BadSubmission(_("Select at least one choice, then press Check."))
            shown = list(item.picked)
        elif given.verb == ax.CHOOSE:
            raw = given.argument or (given.values[0] if given.values else "")
            if not raw.isdigit() or int(raw) >= len(order):
                raise BadSubmission(_("That choice does not exist."))
            shown = [int(raw)]
            item.picked = shown
        else:
            raise StaleAction()
        original = [order[s] for s in shown]
        answer = ", ".join(f"{letter(s)}. {q.choices[order[s]].text}" for s in shown)
        return Graded(is_right(q, set(original)), answer, picked_feedback(q, item))

    def graded_notes(self, question: AnyQuestion, item: ItemState) -> tuple[str, ...]:
        return picked_feedback(_q(question), item)

    def reveal(self, question: AnyQuestion) -> str:
        return _("The answer:") + " " + "; ".join(c.text for c in _q(question).choices if c.correct)

    def check(self, question: AnyQuestion, add: AddProblem) -> None:
        q = _q(question)
        correct = sum(c.correct for c in q.choices)
        if q.multiple and correct == 0:
            add(("choices",), M_("no choice is marked `correct: true`"))
        if not q.multiple and correct != 1:
            add(
                ("choices",),
                M_("exactly one choice must be correct (found {n}); set `multiple: true` for select-all-that-apply", n=correct),
            )
        texts = [c.text for c in q.choices]
        for j, text in enumerate(texts):
            if blank(text):  # a button with no label: " " or a zero-width space passes the length check
                add(("choices", j, "text"), M_("only spaces or invisible characters; write text a learner can see"))
            elif text in texts[:j]:
                add(("choices", j, "text"), M_("the same text as another choice"))

    def proof(self, question: AnyQuestion) -> list[ProofJob]:
        return []

    def checked_fillings(self, question: AnyQuestion) -> BlanksQuestion | None:
        return None

    def longest_option_score(self, question: AnyQuestion) -> float | None:
        """Score 1/(options tied for the longest) when the key is among them; lengths ignore backticks."""
        q = _q(question)
        if q.multiple:
            return None
        lengths = [len(" ".join(c.text.replace("`", "").split())) for c in q.choices]
        tied = [c for c, n in zip(q.choices, lengths, strict=True) if n == max(lengths)]
        return sum(1 for c in tied if c.correct) / len(tied)

    def key_lines(self, question: AnyQuestion) -> list[str]:
        return []

    def graded_run(self, question: AnyQuestion, code: str) -> RunRequest:
        raise TypeError(f"{self.name} questions are not answered with code")
