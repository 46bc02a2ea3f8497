"""The requests a front end sends the core: one frozen value per user action.

Every front end turns what a person did into one of these and calls `QuizService.handle`;
the answer is always a `Reply`. Text front ends read typed commands with `commands.parse`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import field

from bot.core.i18n import N_, _

from .model import Owner, Where
from .record import record

DEFAULT_COUNT = 10
MAX_COUNT = 50


@record
class Start:
    pack: str | None = None
    topic: str | None = None
    difficulty: str | None = None
    count: int | None = None
    question: str | None = None  # one chosen question of `pack` (tests, a "try this one" link)
    owner: Owner | None = None  # a channel's session instead of the actor's own
    replace: bool = False  # stop a running quiz without asking first
    language: str | None = None  # only packs written in this language (`es`, `de`, `pt-BR` ...)


@record
class Act:
    """A click, a menu pick or a form submission named by the action id its control carried."""

    action: str
    values: tuple[str, ...] = ()
    key: str | None = None  # the platform's id for this interaction: a click delivered twice counts once
    # told `RUNNING` once a code answer is on its way to the sandbox, its grading recorded (see `Submit`)
    progress: Callable[[str], Awaitable[None]] | None = field(default=None, compare=False)


@record
class Submit:
    """Free text for the current item: a message, a code block, an attached file, a terminal line.

    A chat message says `where` it was sent, and the core decides what it answers: in a DM, the
    learner's quiz; in a quiz's thread, that quiz; under a channel's daily post (its thread, a
    reply), that day's question, as its form would. Anything else is not addressed to the bot
    (`NotAddressed`). `session_id` names the quiz directly instead (the terminal, tests). `progress`
    is told `RUNNING` once code is on its way to the sandbox (not for a refusal), and only once its
    grading is recorded as unfinished work: a front end may acknowledge the message then, since a
    process killed from that moment on leaves a row that tells the learner (`bot.core.work`).
    """

    text: str
    code_only: bool = False  # chat talk without a code block must not count as a wrong answer
    session_id: str | None = None
    key: str | None = None
    progress: Callable[[str], Awaitable[None]] | None = field(default=None, compare=False)
    where: Where | None = None


@record
class OpenAnswer:
    """`/quiz answer`: the form for the current item."""


@record
class Hint:
    pass


@record
class Skip:
    key: str | None = None  # the platform's id for this delivery: a command delivered twice acts once


@record
class Stop:
    key: str | None = None  # as `Skip.key`


@record
class Current:
    """`/quiz current`: the current item again, with working controls."""


@record
class Stats:
    user_id: str | None = None
    name: str | None = None
    picture: bool = True  # False: the text only (Slack's App Home, which cannot show it)


@record
class Packs:
    language: str | None = None  # only packs written in this language


@record
class Help:
    pass


@record
class RunCode:
    text: str
    # told `RUNNING` once the code is on its way to the sandbox, its run recorded (see `Submit`); never for a refusal
    progress: Callable[[str], Awaitable[None]] | None = field(default=None, compare=False)


@record
class PackLoad:
    """Load a pack from a file; it is proven in the sandbox first unless an operator says `unproven`."""

    filename: str
    data: bytes
    force: bool = False
    unproven: bool = False
    progress: Callable[[str], Awaitable[None]] | None = field(default=None, compare=False)  # edits the working note


@record
class PackEnable:
    pack: str
    enabled: bool


@record
class PackRemove:
    pack: str
    confirmed: bool = False


# --- the social side: races in a channel, leaderboards (clicks on a race arrive as `Act` with an `rc:` id)


@record
class RaceStart:
    """`/quiz race [pack] [topic] [difficulty] [rounds] [seconds]`: a race in the actor's channel."""

    pack: str | None = None
    topic: str | None = None
    difficulty: str | None = None
    rounds: int | None = None
    seconds: int | None = None


@record
class RaceStop:
    """`/quiz race stop`: stop the channel's race (its starter or an admin)."""


@record
class Leaderboard:
    """`/quiz leaderboard [week|month|all] [pack]`."""

    period: str | None = None
    pack: str | None = None


@record
class Privacy:
    """`/quiz privacy leaderboard on|off`."""

    visible: bool


SocialRequest = RaceStart | RaceStop | Leaderboard | Privacy


@record
class DailyReview:
    """`/quiz daily` (`review` in the terminal): today's personal review as a quiz."""


@record
class DailySet:
    """`/quiz daily set`: the channel's daily question (admins); no channel means the one typed in."""

    time: str
    timezone: str
    channel_id: str | None = None
    pack: str | None = None
    topic: str | None = None
    difficulty: str | None = None
    reveal_after_hours: str | None = None


@record
class DailyShow:
    channel_id: str | None = None  # None: every schedule of the server


@record
class DailyOff:
    channel_id: str | None = None


@record
class DailyNow:
    channel_id: str | None = None


@record
class DailySettings:
    """`/quiz daily settings`: the learner's caps, time zone and packs; nothing given shows them."""

    reviews: int | None = None
    new: int | None = None
    timezone: str | None = None
    packs: tuple[str, ...] | None = None


@record
class Remind:
    """`/quiz remind time:<HH:MM> timezone:<IANA>`: the daily reminder DM."""

    time: str
    timezone: str


@record
class RemindOff:
    pass


DAILY_REQUESTS = (DailyReview, DailySet, DailyShow, DailyOff, DailyNow, DailySettings, Remind, RemindOff)

@record
class MyDataExport:
    """`my-data export`: everything kept about the actor, or (admins) about `user_id`, as a file."""

    user_id: str | None = None
    name: str | None = None


@record
class MyDataDelete:
    """`my-data delete`: ask first, then remove everything kept about the actor (or, admins, `user_id`)."""

    user_id: str | None = None
    name: str | None = None


@record
class Language:
    """`/quiz language [code]` (the learner's), `/quiz language server [code]` (admins: the server's default)."""

    code: str | None = None  # None: show the languages in use and the choices
    server: bool = False


@record
class Report:
    """`report [pack] [topic] [since]` (admins): the pack's item analysis and class progress here.

    `since` is as typed (`2026-11-01`, or `7d` for the last seven days); the core reads it.
    """

    pack: str | None = None
    topic: str | None = None
    since: str | None = None


Request = (
    Start | Act | Submit | OpenAnswer | Hint | Skip | Stop | Current | Stats | Packs | Help | RunCode | PackLoad
    | PackEnable | PackRemove | DailyReview | DailySet | DailyShow | DailyOff | DailyNow | DailySettings | Remind
    | RemindOff | MyDataExport | MyDataDelete | Language | Report
    | SocialRequest
)

RUNNING = N_("⏳ Running your code in the sandbox…")
LOADING = N_("⏳ Loading the pack…")


def working_note(request: Request) -> str | None:
    """What to show while a request that may take seconds runs (code, a pack), else None, in the current language.

    Front ends acknowledge such a request first and show this note, then replace it with the reply.
    """
    from . import actions as ax

    if isinstance(request, PackLoad):
        return _(LOADING)
    if isinstance(request, RunCode | Submit) or (isinstance(request, Act) and ax.is_slow(request.action)):
        return _(RUNNING)
    return None


def is_slow(request: Request) -> bool:
    """Say whether handling may take seconds: front ends acknowledge first."""
    return working_note(request) is not None
