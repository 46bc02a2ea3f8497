"""A cache in front of the session store, for a bot that is the database's only user (SQLite).

It keeps each session's row as last stored (plain values: the JSON text and the columns) and
builds a new Session from it on every read, so a caller may change what it got as it likes and
nothing of that shows to anyone until a save succeeds. Keeping rows rather than live objects also
keeps tens of thousands of cached quizzes nearly invisible to Python's garbage collector. A save
that is refused drops the cached row, so the next read comes from the database.

The cache never goes back in time: it remembers the highest version it has seen of each session
(kept, saved, or known to exist from a refused save), and a row older than that is never kept. A
read that missed the cache may come back with a row another save overtook while the read waited
(SQLite readers see the last commit before they started); such a row is read again rather than
kept, or it would hide the newer one until the next save.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

from bot.core.model import Attempt, Owner, Review, Session
from bot.core.ports import Conflict

from .codec import session_from_row
from .sessions import Row, SessionStore

if TYPE_CHECKING:
    from bot.core.answer import AnswerWrite

CAPACITY = 20_000  # sessions kept; the least recently used go first
NO_ACTIVE_CAPACITY = 100_000  # owners remembered to have no active quiz
STALE_READS = 3  # a read overtaken by a save is tried again this often, then returned uncached

OwnerKey = tuple[str, str, str, str]


def _owner_key(row: Row) -> OwnerKey:
    return (row["platform"], row["scope"], row["owner_kind"], row["owner_id"])


class CachedSessions:
    """The SessionStore interface, answered from memory where it can be."""

    def __init__(self, store: SessionStore, capacity: int = CAPACITY) -> None:
        self._store = store
        self._capacity = capacity
        self._rows: OrderedDict[str, Row] = OrderedDict()
        self._active: dict[OwnerKey, str] = {}  # owner -> id of its active session, for cached ones
        self._no_active: set[OwnerKey] = set()
        self._floor: dict[str, int] = {}  # session id -> the highest version known to exist

    async def create(self, session: Session) -> Row:
        row = await self._store.create(session)
        self._keep(row)
        return row

    async def get(self, session_id: str) -> Session | None:
        row = self._rows.get(session_id)
        if row is not None:
            self._rows.move_to_end(session_id)
            return session_from_row(row)
        for _ in range(STALE_READS):
            read = await self._store.get_row(session_id)
            if read is None:
                return None
            if self._keep(read):
                return session_from_row(read)
            cached = self._rows.get(session_id)
            if cached is not None:  # a save kept a newer row while this read waited
                return session_from_row(cached)
        assert read is not None
        return session_from_row(read)  # still behind a save that was refused: the next save says so

    async def recent(self, session_id: str) -> Session | None:
        return await self.get(session_id)  # the cache is never behind this process's own saves

    async def active(self, owner: Owner) -> Session | None:
        key = (owner.platform, owner.scope, owner.kind, owner.id)
        known = self._active.get(key)
        if known is not None and known in self._rows:
            return session_from_row(self._rows[known])
        if key in self._no_active:
            return None
        row = await self._store.active_row(owner)
        if row is None:
            if len(self._no_active) >= NO_ACTIVE_CAPACITY:
                self._no_active.clear()
            self._no_active.add(key)
            return None
        self._keep(row)
        return session_from_row(row)

    async def write(self, unit: AnswerWrite) -> None:
        if unit.session is None:
            await self._store.write(unit)
            return
        await self.save(unit.session, unit.attempt, unit.card, parts=unit)

    async def active_of(self, platform: str, user_id: str) -> list[Session]:
        return await self._store.active_of(platform, user_id)

    async def save(
        self, session: Session, attempt: Attempt | None = None, review: Review | None = None, *, parts: AnswerWrite | None = None
    ) -> Row:
        try:
            row = await self._store.save(session, attempt, review, parts=parts)
        except Conflict:
            self.drop(session.id)  # the stored row is newer than what we had: read it afresh next time
            self._raise_floor(session.id, session.version + 1)
            raise
        self._keep(row)
        return row

    def drop(self, session_id: str) -> None:
        """Forget one session (it changed elsewhere)."""
        old = self._rows.pop(session_id, None)
        if old is not None:
            key = _owner_key(old)
            if self._active.get(key) == session_id:
                del self._active[key]

    def clear(self) -> None:
        """Forget everything (after a change made around the cache, such as deleting a learner's data)."""
        self._rows.clear()
        self._active.clear()
        self._no_active.clear()
        self._floor.clear()

    async def close(self) -> None:
        await self._store.close()

    def _raise_floor(self, session_id: str, version: int) -> None:
        if len(self._floor) >= 2 * self._capacity and session_id not in self._floor:
            self._floor = {sid: self._floor[sid] for sid in self._rows if sid in self._floor}
        self._floor[session_id] = max(version, self._floor.get(session_id, version))

    def _keep(self, row: Row) -> bool:
        """Cache the row unless a newer version of the session is known; return whether it was kept."""
        sid = row["id"]
        if row["version"] < self._floor.get(sid, row["version"]):
            return False
        self._raise_floor(sid, row["version"])
        self._rows[sid] = row
        self._rows.move_to_end(sid)
        key = _owner_key(row)
        self._no_active.discard(key)
        if row["status"] == "active":
            self._active[key] = sid
        elif self._active.get(key) == sid:
            del self._active[key]
            self._no_active.add(key)
        while len(self._rows) > self._capacity:
            self.drop(next(iter(self._rows)))
        return True
