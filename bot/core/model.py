"""Domain values: who acts, quiz sessions and their items, attempts, progress."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any, Literal, TypeVar

from .i18n import _, ngettext, number
from .record import record

_D = TypeVar("_D")


def amended(value: _D, **changes: Any) -> _D:
    """A copy of a plain dataclass (no slots, no `__post_init__`) with `changes`: `dataclasses.replace`
    without its per-field walk, for the few copies made on every click (a third of the time)."""
    copy = object.__new__(type(value))
    state = copy.__dict__
    state.update(value.__dict__)
    state.update(changes)
    return copy

Platform = str  # "discord", "slack", "console"
SessionStatus = Literal["active", "finished", "stopped", "expired"]


@record
class Actor:
    """A person acting in one place: a Discord guild or DM, a Slack workspace, the console."""

    platform: Platform
    scope: str  # guild id, workspace (team) id, or "local"
    user_id: str
    name: str = ""
    is_admin: bool = False  # what the platform says (Manage Server, workspace admin)
    channel_id: str | None = None
    # What the platform says about languages: the person's client (Discord's interaction locale) and
    # the server's default (Discord's preferred locale). The learner's own choice comes first (bot.core.locale).
    locale: str | None = None
    server_locale: str | None = None

    @property
    def key(self) -> str:
        return f"{self.platform}:{self.user_id}"

    @property
    def mention(self) -> str:
        return self.name or self.user_id


@record
class Owner:
    """Who a session belongs to: one user, or one channel (races, the daily question)."""

    platform: Platform
    scope: str
    kind: Literal["user", "channel"]
    id: str

    @classmethod
    def user(cls, actor: Actor) -> Owner:
        return cls(actor.platform, actor.scope, "user", actor.user_id)


@dataclass
class ItemState:
    pack: str
    question: str
    attempts: int = 0
    done: bool = False
    correct: bool = False
    skipped: bool = False
    hinted: bool = False
    points: int = 0
    order: list[int] = field(default_factory=list)  # choice: the original indices in the order shown
    picked: list[int] = field(default_factory=list)  # choice: the shown indices the learner selected
    selections: dict[int, int] = field(default_factory=dict)  # blanks: blank number -> option index
    card: str | None = None  # the learner's FSRS card for this question as it was at the start; None once done
    key: str | None = None  # the platform's delivery of the item's last graded answer (a repeat of it is known)
    seen: str | None = None  # choice: the choices as shown (`choice.signature`); an update may change them

    def to_json(self) -> dict[str, Any]:
        """Return the item as stored: readable keys, and only the fields that differ from a new item."""
        data: dict[str, Any] = {"pack": self.pack, "question": self.question}
        if self.attempts:
            data["attempts"] = self.attempts
        if self.done:
            data["done"] = True
        if self.correct:
            data["correct"] = True
        if self.skipped:
            data["skipped"] = True
        if self.hinted:
            data["hinted"] = True
        if self.points:
            data["points"] = self.points
        if self.order:
            data["order"] = list(self.order)
        if self.selections:
            data["selections"] = {str(k): v for k, v in self.selections.items()}
        if self.picked:
            data["picked"] = list(self.picked)
        if self.card is not None:
            data["card"] = self.card
        if self.key is not None:
            data["key"] = self.key
        if self.seen is not None:
            data["seen"] = self.seen
        return data

    def copy(self) -> ItemState:
        # Hand-written: dataclasses.replace is several times slower, and this runs on every answer.
        new = object.__new__(ItemState)
        new.__dict__.update(self.__dict__)
        new.order = list(self.order)
        new.selections = dict(self.selections)
        new.picked = list(self.picked)
        return new

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ItemState:
        """Read an item as stored; rows written before migration 0002 use one-letter keys."""
        if "p" in data:
            data = {OLD_ITEM_KEYS.get(k, k): v for k, v in data.items()}
        # Built field by field rather than through __init__: this runs for every item of every
        # session read, and the stored keys are the field names.
        state = {**ITEM_DEFAULTS, **data}
        last = state.pop("last_answer", None)  # before `picked`, a single choice was kept here
        if not state["picked"] and isinstance(last, str) and last.isdigit():
            state["picked"] = [int(last)]
        if len(state) != len(ITEM_DEFAULTS):
            state = {k: state[k] for k in ITEM_DEFAULTS}  # ignore keys this version does not know
        state["order"] = list(state["order"])
        state["picked"] = [int(v) for v in state["picked"]]
        selections = state["selections"]
        state["selections"] = {int(k): int(v) for k, v in selections.items()} if selections else {}
        item = object.__new__(cls)
        item.__dict__.update(state)
        return item


# What a new item holds; `to_json` leaves these out and `from_json` fills them in.
ITEM_DEFAULTS: dict[str, Any] = {
    "pack": "",
    "question": "",
    "attempts": 0,
    "done": False,
    "correct": False,
    "skipped": False,
    "hinted": False,
    "points": 0,
    "order": (),
    "picked": (),
    "selections": None,
    "card": None,
    "key": None,
    "seen": None,
}

# The one-letter keys items were stored with before migration 0002, and their readable names.
OLD_ITEM_KEYS = {
    "p": "pack",
    "q": "question",
    "a": "attempts",
    "d": "done",
    "c": "correct",
    "s": "skipped",
    "h": "hinted",
    "pt": "points",
    "o": "order",
    "sel": "selections",
    "la": "last_answer",
    "cd": "card",
}


@record
class Where:
    """Where a message was sent, as the front end saw it: the core decides from it what the message answers.

    `channel`: the channel or DM it is in (on Discord, a thread's parent channel when known);
    `thread`: the thread it is in (Discord: the thread's channel id, which is the id of the message
    the thread was started from; Slack: the parent's `ts`); `replied_to`: the message it replies to.
    """

    channel: str | None = None
    thread: str | None = None
    replied_to: str | None = None
    dm: bool = False


@record
class Anchor:
    """Where a quiz lives on its platform, as the front end that posted it remembered (same on every platform).

    `channel` and `thread` as in `Where`; `message`: the platform's id of the current item's message
    (where the front end can edit it).
    """

    channel: str | None = None
    thread: str | None = None
    message: str | None = None

    def holds(self, where: Where) -> bool:
        """Say whether a message sent at `where` is in this quiz's thread."""
        if self.thread is None or self.thread != where.thread:
            return False
        return self.channel is None or where.channel is None or self.channel == where.channel

    def to_json(self) -> dict[str, str]:
        return {k: v for k, v in (("channel", self.channel), ("thread", self.thread), ("message", self.message)) if v}

    @classmethod
    def from_json(cls, data: Any) -> Anchor:
        """Read a stored anchor, also as the front ends kept it before it was typed.

        Slack wrote `{channel, thread_ts, item_ts}`; Discord `{platform, channel_id, guild_id, thread}`
        with `thread` "1" when `channel_id` was a thread (its parent was not kept).
        """
        if not isinstance(data, dict):
            return cls()

        def text(key: str) -> str | None:
            value = data.get(key)
            return str(value) if value not in (None, "") else None

        if "channel_id" in data:  # Discord, before
            if text("thread") == "1":
                return cls(channel=None, thread=text("channel_id"))
            return cls(channel=text("channel_id"))
        return cls(
            channel=text("channel"),
            thread=text("thread") or text("thread_ts"),
            message=text("message") or text("item_ts"),
        )


def new_session_id() -> str:
    return secrets.token_urlsafe(9)  # 12 characters, fits a custom_id with room to spare


@dataclass
class Session:
    id: str
    owner: Owner
    started_by: str  # user id
    started_by_name: str
    items: list[ItemState]
    position: int = 0
    status: SessionStatus = "active"
    created_at: datetime = field(default_factory=lambda: datetime.min)
    updated_at: datetime = field(default_factory=lambda: datetime.min)
    filters: dict[str, Any] = field(default_factory=dict)
    anchor: Anchor = field(default_factory=Anchor)  # where the quiz lives on its platform
    version: int = 0  # optimistic concurrency: bumped on every save

    def copy(self) -> Session:
        """Return an independent copy (cheaper than a round trip through JSON)."""
        return replace(
            self,
            items=[item.copy() for item in self.items],
            filters=dict(self.filters),
        )

    @property
    def current(self) -> ItemState | None:
        """The item being answered, this session's own to change: one shared with a cached copy is copied first."""
        if self.status != "active" or self.position >= len(self.items):
            return None
        item = self.items[self.position]
        if type(item) is not ItemState:  # a read-only item a snapshot shares (`bot.storage.codec.freeze`)
            item = self.items[self.position] = item.copy()
        return item

    def graded_by(self, key: str | None) -> int | None:
        """The position of the item the delivery `key` graded already (the platform sent it twice), else None."""
        if key is None:
            return None
        return next((n for n, item in enumerate(self.items) if item.key == key), None)


@record
class Attempt:
    platform: Platform
    scope: str
    user_id: str
    pack: str
    question: str
    topic: str | None
    answer: str
    correct: bool
    points: int
    at: datetime
    session_id: str | None = None
    # What makes one learner's action unique on its platform (Discord's interaction id, a hash of a
    # Slack action and its action_ts): an attempt with a key already stored is refused, so an action
    # delivered twice is recorded once.
    key: str | None = None
    # The row of unfinished work this answer settles (bot.core.work): removed in the same transaction,
    # and the attempt is refused if the row is gone (the learner was already told to send it again).
    work: str | None = None
    # How it was answered (quiz, daily post, race, daily review): the leaderboard weighs each its own way.
    mode: str = "quiz"
    # What the grade said in a line each, for the organiser's report: a code answer's failing tests' sentences.
    detail: str | None = None


@record
class History:
    """What one learner has done with one question."""

    attempts: int
    last_correct: bool
    due: datetime | None = None
    card: str | None = None


@record
class TopicStats:
    pack: str
    topic: str | None
    attempts: int
    correct: int


@record
class UserStats:
    attempts: int
    correct: int
    topics: tuple[TopicStats, ...]
    due: int  # questions due for review today (`bot.core.review.is_due`)
    last_practice: datetime | None
    streak: Streak | None = None  # the learner's stored streak (bot.core.progress), None: never practised
    zone: str = "UTC"  # the learner's time zone, where their practice days roll over


@record
class PackInfo:
    id: str
    title: str
    version: int
    questions: int
    enabled: bool
    topics: tuple[tuple[str, str], ...]  # (id, title)
    language: str = ""  # the language the pack is written in, as it declares (packs are not translated)


@record
class ImportReport:
    pack: str
    version: int
    previous_version: int | None
    added: tuple[str, ...]
    updated: tuple[str, ...]
    removed: tuple[str, ...]

    def summary(self) -> str:
        if self.previous_version is None:
            return ngettext(
                "Pack `{pack}` v{version} added with {n} question.", "Pack `{pack}` v{version} added with {n} questions.", len(self.added)
            ).format(pack=self.pack, version=self.version, n=number(len(self.added)))
        return _("Pack `{pack}` updated v{old} → v{version}: {added} added, {updated} updated, {removed} removed.").format(
            pack=self.pack, old=self.previous_version, version=self.version,
            added=number(len(self.added)), updated=number(len(self.updated)), removed=number(len(self.removed)),
        )  # fmt: skip


@record
class Review:
    platform: str
    user_id: str
    pack: str
    question: str
    card: str  # FSRS card as JSON
    due: datetime
    correct: bool  # this answer was right


@record
class Streak:
    current: int = 0
    longest: int = 0
    freezes: int = 0
    last_day: date | None = None  # the last day counted (practised, or covered by a freeze)
    frozen_days: int = 0  # freezes spent so far, in total
