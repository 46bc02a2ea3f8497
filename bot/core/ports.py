"""The ports the core needs; storage and the sandbox client implement them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol
from zoneinfo import ZoneInfo

from .coderun import CodeRunner, RunOutcome, RunRequest, RunStatus, TestLine
from .model import Anchor, Attempt, History, ImportReport, Owner, PackInfo, Review, Session, UserStats
from .packs import Pack

if TYPE_CHECKING:
    from .answer import AnswerWrite


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class Conflict(Exception):
    """A save was refused and nothing of it was kept.

    The session changed since it was loaded (another process or click got there first), or the
    attempt's key is already stored (the same action, delivered twice).
    """


class WorkTaken(Conflict):
    """The answer's unfinished-work row was taken as abandoned: the learner was told to send it again."""


class Repository(Protocol):
    async def get_pack(self, pack_id: str) -> Pack | None: ...

    async def list_packs(self, scope: str | None = None) -> list[PackInfo]:
        """Every stored pack; `enabled` reflects the scope's settings when a scope is given."""
        ...

    async def import_pack(self, pack: Pack, *, force: bool = False, by: str | None = None) -> ImportReport:
        """Store the pack. `by`: the server or workspace loading it (`importing.pack_owner`), None the operator.

        A new pack belongs to `by`. A stored one is replaced only by the operator or by its owner: for
        anyone else raise `importing.PackNotTheirs` and change nothing, checked in the write's transaction.
        """
        ...

    async def delete_pack(self, pack_id: str, *, by: str | None = None) -> bool:
        """Remove the pack (False: none stored); `by` as in `import_pack`, refused alike for another's pack."""
        ...

    async def pack_owners(self) -> dict[str, str | None]:
        """Every stored pack's owner: the server or workspace that loaded it first, None for the operator."""
        ...

    async def set_pack_enabled(self, scope: str, pack_id: str, enabled: bool) -> None: ...

    async def create_session(self, session: Session) -> None:
        """Store a new session; raise Conflict if its owner already has an active one."""
        ...

    async def get_session(self, session_id: str) -> Session | None:
        """Return the session as stored: the caller's own copy, to change and save (or drop)."""
        ...

    async def active_session(self, owner: Owner) -> Session | None:
        """Return the owner's active session as stored: the caller's own copy, as `get_session`."""
        ...

    async def recent_session(self, session_id: str, position: int | None = None) -> Session | None:
        """The session as this process last stored it (another may have saved since), else as stored.

        With `position`, as last stored only if it was then at that item (else as stored): a guess
        that is behind the click it is for is not worth a try. Only for a change whose save is
        refused when the version moved on (see `Gate.save`), and whose refusals are made again on
        the session as stored.
        """
        ...

    async def active_sessions_of(self, platform: str, user_id: str) -> list[Session]:
        """Every active quiz the learner owns, in any scope."""
        ...

    async def save_session(
        self, session: Session, attempt: Attempt | None = None, review: Review | None = None
    ) -> None:
        """Store the session, the attempt and the review card in one transaction, all or nothing.

        Raise Conflict, keeping nothing, if the session changed since it was loaded or the
        attempt's `key` is already stored. On success `session.version` is raised by one.
        """
        ...

    async def save_anchor(self, session: Session) -> None:
        """Store the session, whose only change since it was loaded is its anchor (where its item was posted).

        As `save_session`, or later: this process's reads see it at once, the session's next save
        carries it, and other processes (or a restart) see it a moment later (`bot/storage/anchors.py`).
        A later one never raises; one whose quiz moved on by then is kept only while the quiz is
        still at the item.
        """
        ...

    async def save_anchor_at(self, session_id: str, position: int | None, anchor: Anchor) -> bool:
        """As `save_anchor` of the quiz as this process holds it, when it is at item `position` (any, if None).

        Without a read or a copy of the quiz. False when that cannot be told here (not held, or at
        another item): nothing changed, and the caller reads the quiz.
        """
        ...

    async def write_answer(self, unit: AnswerWrite) -> None:
        """Write a graded answer's unit of work in one transaction (see `bot.core.answer`), or raise Conflict."""
        ...

    async def history(self, platform: str, user_id: str, packs: Sequence[str]) -> dict[tuple[str, str], History]: ...

    async def learner_zone(self, platform: str, user_id: str) -> str:
        """The learner's time zone (IANA name; UTC until they set one), which their practice day follows."""
        ...

    async def user_stats(
        self, platform: str, user_id: str, now: datetime, *, due_by: Callable[[ZoneInfo], datetime] | None = None
    ) -> UserStats:
        """The learner's stats at `now`; `due` counts cards due before `due_by(learner's zone)` (`bot.core.review`).

        Without `due_by`, cards due by `now`. Cards of a removed question, or suspended from the
        daily review (leeches), are never due.
        """
        ...

    async def get_setting(self, key: str) -> str | None:
        """A value about one learner has a key `PLATFORM:...:USER_ID`, so their export finds it."""
        ...

    async def set_setting(self, key: str, value: str) -> None: ...


__all__ = [
    "Clock",
    "CodeRunner",
    "Conflict",
    "Repository",
    "RunOutcome",
    "RunRequest",
    "RunStatus",
    "SystemClock",
    "TestLine",
    "WorkTaken",
]
