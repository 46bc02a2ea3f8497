"""What every question type provides: the contract of a module under `bot/core/items/`.

A type module owns everything about its questions: the controls it offers, applying a
learner's input, grading, the reveal, the checks a pack must pass, and its proof for
`quizbot pack validate --run`. The quiz flow calls these and never looks at a question's class.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import field
from typing import Protocol

from bot.core import actions as ax
from bot.core.coderun import CodeRunner, RunOutcome, RunRequest
from bot.core.errors import QuizError
from bot.core.i18n import N_, _
from bot.core.model import ItemState
from bot.core.packs.models import AnyQuestion, BlanksQuestion
from bot.core.record import record
from bot.core.replies import Control, InputRequest, Part, Tone

# Add a problem at a path below the question (`("choices", 2, "text")`) with a message.
AddProblem = Callable[[tuple[str | int, ...], str], None]


QUESTION_CHANGED = N_("This question was changed since it was shown (its pack was updated); here it is as it is now.")


def fingerprint(*texts: str) -> str:
    """A short digest of what a learner sees of a question and answers by position (its choices, its menu):
    kept in `ItemState.seen` when the item is made, a new version of the pack that changes them changes it."""
    return f"{zlib.crc32(chr(31).join(texts).encode()):08x}"


@record
class Changed:
    """The input changed the item's state (a menu pick); show the item again, with `note` under it."""

    note: str = ""


@record
class Graded:
    """The input was an answer: whether it was right, what was answered, and what to say."""

    correct: bool
    answer: str
    feedback: tuple[str, ...] = ()
    report: tuple[Part, ...] = ()
    detail: str = ""  # stored with the attempt for the item analysis (code: the failing tests' sentences)


@record
class NotAnAnswer:
    """The input could not be graded (code that does not parse, a busy sandbox): no attempt used."""

    parts: tuple[Part, ...]
    tone: Tone = Tone.WARNING


Outcome = Changed | Graded | NotAnAnswer


@record
class Input:
    """One learner input on the current item: a verb from `actions`, its argument and values."""

    verb: str
    argument: str = ""
    values: Sequence[str] = ()


@record
class Context:
    """What a type module may use while grading: the sandbox and who is asking.

    `running` is awaited as code goes to the sandbox, after the type's own checks: a refused answer
    (empty, too long) tells the learner nothing of running it (`Flow.waiting`).
    """

    runner: CodeRunner | None
    owner_key: str
    running: Callable[[], Awaitable[None]] | None = field(default=None, compare=False)

    @property
    def max_code_bytes(self) -> int | None:
        return self.runner.max_code_bytes if self.runner is not None else None

    async def run(self, request: RunRequest) -> RunOutcome:
        if self.runner is None:
            raise QuizError(_("Code can't be run here: the sandbox is not configured."))
        if self.running is not None:
            await self.running()
        return await self.runner.run(request)


@record
class View:
    """The type-specific part of an item's message: body parts and answer controls."""

    parts: tuple[Part, ...] = ()
    rows: tuple[tuple[Control, ...], ...] = ()


@record
class ProofJob:
    """One sandbox run that proves a key: the request and a judge returning a problem or None."""

    request: RunRequest
    judge: Callable[[RunOutcome], str | None]
    field: tuple[str | int, ...] = ()


@record
class Make:
    """Builds action ids for one item of one session (so type modules need not know the format)."""

    session_id: str
    position: int
    extra: dict[str, str] = field(default_factory=dict)

    def __call__(self, verb: str, argument: str | int = "") -> str:
        return ax.make(self.session_id, self.position, verb, argument)


class ItemType(Protocol):
    """The rules of one question type."""

    name: str  # the pack format's `type`
    answered_by_text: bool  # True: a typed answer or code (the Answer form); False: buttons or menus
    file_fields: tuple[str, ...]  # keys naming files beside pack.yaml, read in by the loader
    wrong_solutions: bool  # the pack may hold `wrong/<question id>/*.py` that must fail its tests
    racing: bool  # True: a channel race may use it (everyone answers at once, in seconds)
    sandboxed: bool  # True: answers are graded in the sandbox (`graded_run`); the learner waits seconds

    def prepare(self, question: AnyQuestion, item: ItemState, rng: random.Random) -> None:
        """Set up a new item's state (shuffle the choices, ...; `seen` set to `seen(question)`)."""
        ...

    def seen(self, question: AnyQuestion) -> str | None:
        """A digest of what the learner answers by position (choices, a menu); None when nothing is.

        Kept in `ItemState.seen` when the item is made: a pack update that changes it changes what a
        press on the shown item means (`Flow` makes the item again rather than grade it).
        """
        ...

    def view(self, question: AnyQuestion, item: ItemState, make: Make, *, final: bool) -> View:
        """Return the body and the answer controls; `final` shows the answered item."""
        ...

    def form(self, question: AnyQuestion, make: Make) -> InputRequest | None:
        """Return the form that answers this item, or None when it is answered by its controls."""
        ...

    def text_verb(self, question: AnyQuestion, text: str, *, code_only: bool) -> str:
        """Return the verb a free-text message answers this item with, or raise BadSubmission."""
        ...

    async def answer(self, question: AnyQuestion, item: ItemState, given: Input, ctx: Context) -> Outcome:
        """Apply one input: change the state, grade an answer, or refuse it."""
        ...

    def reveal(self, question: AnyQuestion) -> str:
        """Return the right answer as Markdown, shown after the last attempt or a skip."""
        ...

    def graded_notes(self, question: AnyQuestion, item: ItemState) -> tuple[str, ...]:
        """What the item's grade said beyond its verdict, read from its stored state: a redraw of the graded item says it again."""
        ...

    def check(self, question: AnyQuestion, add: AddProblem) -> None:
        """Add a problem for each rule of the pack format this question breaks."""
        ...

    def proof(self, question: AnyQuestion) -> list[ProofJob]:
        """Return the sandbox runs that prove this question's key."""
        ...

    def graded_run(self, question: AnyQuestion, code: str) -> RunRequest:
        """The run that grades `code` as an answer (types with `wrong_solutions`)."""
        ...

    def checked_fillings(self, question: AnyQuestion) -> BlanksQuestion | None:
        """A blanks question whose other fillings `pack validate --run` must show to fail, else None."""
        ...

    def longest_option_score(self, question: AnyQuestion) -> float | None:
        """What always picking the longest option scores here (0 to 1); None without one right option."""
        ...

    def key_lines(self, question: AnyQuestion) -> list[str]:
        """The lines of code that answer this item, which its hint must not give away (none: no code)."""
        ...
