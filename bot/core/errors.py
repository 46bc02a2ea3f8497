"""Errors the core raises; adapters turn them into messages for people.

QuizError
 ├── UnknownName          an unknown pack, topic or difficulty (names what exists)
 ├── NoActiveQuiz         an answer, hint or skip with no quiz running
 ├── QuizExpired          an action on a finished, stopped or expired quiz
 ├── StaleAction          a click on an item that is no longer current
 │    └── SaveConflict     its save lost to another write (another process); read again and retry
 ├── NotYourQuiz          a click on someone else's quiz
 ├── NotAllowed           an admin action by someone who is not an admin
 ├── BadSubmission        code too long, not Python, empty, ...
 ├── PackInvalid          a pack that fails validation (carries every problem)
 ├── PackRefused          a valid pack that may not replace the stored one (version)
 └── Unavailable          the database failed this request (`DatabaseFault`): told in words by kind
StorageError              the database cannot be opened or used
 └── DatabaseFault        a run-time failure storage recognised: unavailable, full, read-only or busy
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .i18n import N_, _, ngettext, number, said
from .replies import Message, cmd
from .words import shown


class QuizError(Exception):
    """A problem a person caused and can fix; the message is meant for them."""

    # Notices the service shows before this error (work a restart dropped, see bot.core.work).
    before: tuple[Message, ...] = ()
    # A refusal of an answer to a message many people share (a channel's daily post): only to the person.
    aside: bool = False
    # The language the message was made in (set by the locale middleware); None: raised outside a request,
    # in the language the front end had set (`i18n.use_locale`). Front ends add their own words in it.
    locale: str | None = None


MAX_ECHO = 100  # characters of a typed name quoted back in a refusal


class UnknownName(QuizError):
    """A name that does not exist; the message lists the names that do."""

    def __init__(self, kind: str, name: str, known: Sequence[str]) -> None:
        self.kind, self.name, self.known = kind, name, tuple(known)
        listed = ", ".join(f"`{k}`" for k in known) if known else _("none")
        sentence = _UNKNOWN.get(kind, N_("There is no {kind} `{name}`. Available: {listed}."))
        seen = shown(name)  # a typed RLO flips the line; a very long name would crowd out the list that helps
        seen = seen if len(seen) <= MAX_ECHO else seen[: MAX_ECHO - 1] + "…"
        super().__init__(_(sentence).format(kind=kind, name=seen, listed=listed))


class NoActiveQuiz(QuizError):
    def __init__(self) -> None:
        super().__init__(_("You have no quiz running. Start one with {start}.").format(start=cmd("start")))


class QuizExpired(QuizError):
    def __init__(self, status: str, session_id: str | None = None) -> None:
        self.status, self.session_id = status, session_id
        sentence = {
            "finished": N_("This quiz has finished. Start a new one with {start}."),
            "stopped": N_("This quiz was stopped. Start a new one with {start}."),
            "expired": N_("This quiz has expired. Start a new one with {start}."),
        }.get(status, N_("This quiz is over. Start a new one with {start}."))
        super().__init__(_(sentence).format(start=cmd("start")))


class NotAddressed(QuizError):
    """A chat message that answers nothing of the bot's (code in some other thread): nothing is shown."""

    def __init__(self) -> None:
        super().__init__(_("That message is not an answer to a quiz."))


class StaleAction(QuizError):
    def __init__(self) -> None:
        super().__init__(_("That question was already answered; the quiz has moved on."))


class SaveConflict(StaleAction):
    """A session's save was refused: another write (often another bot process) changed it first.

    Callers that can read the session again and redo their change (the service does, a few times)
    retry; to the learner it still reads as a stale click when the retries run out.
    """


class NotYourQuiz(QuizError):
    def __init__(self, owner_name: str) -> None:
        self.owner_name = owner_name
        super().__init__(
            _("This quiz belongs to {owner}. Start your own with {start}.").format(owner=owner_name, start=cmd("start"))
        )


class NotAllowed(QuizError):
    """An admin action refused; the text names who is an admin on the person's own platform."""

    def __init__(self, what: str, *, in_dm: bool = False, platform: str | None = None) -> None:
        place, admins = _ADMINS.get(platform or "", _ADMINS[""])
        where = " " + _(_IN_DM[place]) if in_dm else ""
        super().__init__(
            _(
                "Only admins may {what}.{where} Admins are {admins}; the bot's operator can name more in the "
                "`QUIZBOT_ADMINS` setting ({ids})."
            ).format(what=what, where=where, admins=_(admins), ids=_(_OPERATOR_IDS.get(platform or "", _OPERATOR_IDS[""])))
        )


# Who an admin is, as each platform says it: (where admin commands work, who the admins are).
_ADMINS = {
    "discord": ("server", N_("members with the Manage Server permission")),
    "slack": ("workspace", N_("the workspace's admins and owners")),
    "": ("server or workspace", N_("members with Manage Server (Discord) or workspace admins (Slack)")),
}
_IN_DM = {
    "server": N_("Admin commands work in a server channel, not in a direct message."),
    "workspace": N_("Admin commands work in a workspace channel, not in a direct message."),
    "server or workspace": N_("Admin commands work in a server or workspace channel, not in a direct message."),
}
_PLACES = {"server": N_("server"), "workspace": N_("workspace"), "server or workspace": N_("server or workspace")}
_OPERATOR_IDS = {
    "discord": "`discord:<user id>`",
    "slack": "`slack:<user id>`",
    "": N_("`discord:<user id>` or `slack:<user id>`"),
}
_UNKNOWN = {
    "pack": N_("There is no pack `{name}`. Available: {listed}."),
    "topic": N_("There is no topic `{name}`. Available: {listed}."),
    "difficulty": N_("There is no difficulty `{name}`. Available: {listed}."),
    "question": N_("There is no question `{name}`. Available: {listed}."),
    "period": N_("There is no period `{name}`. Available: {listed}."),
    "language": N_("There is no language `{name}`. Available: {listed}."),
}


def place_word(platform: str | None) -> str:
    """What the platform calls the place the bot is added to: server (Discord), workspace (Slack)."""
    return _(_PLACES[_ADMINS.get(platform or "", _ADMINS[""])[0]])


class BadSubmission(QuizError):
    pass


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a pack, located in its file."""

    file: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        """The problem in the current language (a message made with `M_`; English on the CLI)."""
        return f"{self.file}:{self.line}:{self.col}: {said(self.message)}"


class PackInvalid(QuizError):
    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        first = "\n".join(str(p) for p in self.problems[:10])
        more = len(self.problems) - 10
        tail = "\n" + _("... and {n} more").format(n=number(more)) if more > 0 else ""
        count = len(self.problems)
        head = ngettext("The pack has {n} problem:", "The pack has {n} problems:", count).format(n=number(count))
        super().__init__(f"{head}\n{first}{tail}")


class PackRefused(QuizError):
    pass


class StorageError(Exception):
    """The database could not be opened or used; the message is safe to show an operator."""


FaultKind = Literal["unavailable", "full", "read-only", "busy"]

# What a person is told when the database fails their request, by kind (the operator reads the log).
FAULT_TEXT: dict[FaultKind, str] = {
    "unavailable": N_("The bot cannot reach its database right now, so this was not saved. Please try again in a few minutes."),
    "full": N_("The bot's disk is full, so nothing new can be saved; what you did before is kept. Please try again later."),
    "read-only": N_(
        "The bot's database cannot be written right now, so this was not saved; what you did before is kept. "
        "Please try again later."
    ),
    "busy": N_("The bot's database is busy, so this was not saved. Please try again in a few seconds."),
}


class DatabaseFault(StorageError):
    """A run-time database failure storage recognised, by kind; the message is the operator's one line.

    Storage raises it in place of the driver's error (`bot.storage.database.classify`); the core tells
    the person `FAULT_TEXT[kind]` (`Unavailable`) and logs the line once per kind per interval
    (`bot.core.faults`). Errors storage does not recognise (a bug, a broken constraint) stay as they are.
    """

    def __init__(self, kind: FaultKind, line: str) -> None:
        self.kind = kind
        super().__init__(line)


class Unavailable(QuizError):
    """The database failed this request: the person is told what kind of failure, not a generic apology."""

    def __init__(self, kind: FaultKind) -> None:
        self.kind = kind
        super().__init__(_(FAULT_TEXT[kind]))
