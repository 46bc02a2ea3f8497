"""What a front end asks or tells the core besides a person's action: names to complete, where a quiz lives.

`QuizService.ask(query)` answers each with the value its type names (`Query[T]` -> `T`); no
middleware runs (these are not a person's requests: no metrics, no notices). Each feature registers
the queries it answers, like its requests.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import ClassVar, Generic, TypeVar

from .model import Actor, Anchor, PackInfo
from .replies import Message

T = TypeVar("T")


class Query(Generic[T]):
    """A question whose answer is a `T`."""

    # Told after the person's reply went out (where it was posted): a failure is logged, never raised.
    after_reply: ClassVar[bool] = False


@dataclass(frozen=True)
class PackNames(Query[list[str]]):
    """The packs enabled in `scope` (autocomplete)."""

    scope: str


@dataclass(frozen=True)
class ListedPackNames(Query[list[str]]):
    """The packs listed in `scope`, enabled or disabled there (an admin's autocomplete); another scope's
    pack only once an admin here switched it."""

    scope: str


@dataclass(frozen=True)
class TopicNames(Query[list[str]]):
    """The topics of the packs enabled in `scope`, or of `pack` (autocomplete)."""

    scope: str
    pack: str | None = None


@dataclass(frozen=True)
class PackList(Query[list[PackInfo]]):
    """The packs enabled in `scope`; None: every stored pack, whatever any scope's settings say."""

    scope: str | None


@dataclass(frozen=True)
class Rank(Query["int | None"]):
    """The actor's place by points this week (Slack's App Home); None when hidden, absent or off."""

    actor: Actor


@dataclass(frozen=True)
class QuizAnchor(Query["Anchor | None"]):
    """Where the actor's active quiz lives, or the quiz `session_id` (None: no such quiz, or no note yet)."""

    actor: Actor
    session_id: str | None = None


@dataclass(frozen=True)
class RememberQuiz(Query[None]):
    """Remember where a quiz lives: a new item's message was posted at `anchor` (for the item at `position`)."""

    after_reply: ClassVar[bool] = True
    session_id: str
    anchor: Anchor
    position: int | None = None


@dataclass(frozen=True)
class RememberRace(Query[None]):
    """Remember where a race's current round was posted, so its closing can edit that message."""

    after_reply: ClassVar[bool] = True
    race_id: str
    anchor: dict[str, str]


@dataclass(frozen=True)
class HelpText(Query[Message]):
    """The help message (shown in an acknowledgement, before any work)."""


@dataclass(frozen=True)
class LearnerLanguage(Query[str]):
    """The language of `actor`'s private replies (for a usage note or a working note made before any request)."""

    actor: Actor


@dataclass(frozen=True)
class RememberedLanguage(Query["str | None"]):
    """A learner's own language if this process read it lately, else None: no database read (a note before the core answers)."""

    platform: str
    user_id: str


@dataclass(frozen=True)
class ServerLanguage(Query[str]):
    """The language of the public posts in `scope` on `platform` (the daily question, a race)."""

    platform: str
    scope: str


@dataclass(frozen=True)
class PlatformLocales(Query[None]):
    """Tell the core how to ask the platform for a person's language when an actor carries none (Slack)."""

    platform: str
    lookup: Callable[[Actor], Awaitable[str | None]] = field(compare=False)
