"""A cache in front of the session store, for a bot that is the database's only user (SQLite).

It keeps each session as last stored, a snapshot of its own (`codec.freeze`), and hands out a new
copy on every read, so a caller may change what it got and nothing of that shows to anyone until a
save succeeds. The copy shares the snapshot's items, which are read-only: the item being answered
is copied as `Session.current` hands it out, so a click copies one item, not the quiz. A save that
is refused drops the cached session, so the next read comes from the database.

The cache never goes back in time: it remembers the highest version it has seen of each session
(kept, saved, or known to exist from a refused save), and a row older than that is never kept. A
read that missed the cache may come back with a row another save overtook while the read waited
(SQLite readers see the last commit before they started); such a row is read again rather than
kept, or it would hide the newer one until the next save.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

from bot.core.model import Anchor, Attempt, Owner, Review, Session
from bot.core.ports import Conflict

from . import anchors
from .codec import Snapshot, freeze, session_from_row, thaw
from .sessions import Row, SessionStore

if TYPE_CHECKING:
    from bot.core.answer import AnswerWrite

# Sessions kept, the least recently used going first. A snapshot of a 20-item quiz takes 7 KB or more
# (tracemalloc), so the bound before, 20,000, let a busy process's memory grow by 150 MB and more;
# 2,000 is more learners answering at once than one process serves (a quiz pushed out is read from
# the database when its learner comes back).
CAPACITY = 2_000
DONE_CAPACITY = 200  # of those, finished or stopped quizzes: only a late click on one reads it again
NO_ACTIVE_CAPACITY = 100_000  # owners remembered to have no active quiz
STALE_READS = 3  # a read overtaken by a save is tried again this often, then returned uncached

OwnerKey = tuple[str, str, str, str]


def _owner_key(session: Session) -> OwnerKey:
    o = session.owner
    return (o.platform, o.scope, o.kind, o.id)


class CachedSessions:
    """The SessionStore interface, answered from memory where it can be."""

    def __init__(self, store: SessionStore, capacity: int = CAPACITY, done_capacity: int = DONE_CAPACITY) -> None:
        self._store = store
        self._capacity = capacity
        self._done_capacity = done_capacity
        self._done: OrderedDict[str, None] = OrderedDict()  # the cached sessions that are no longer active, oldest first
        self._rows: OrderedDict[str, tuple[OwnerKey, Snapshot]] = OrderedDict()  # id -> its owner and the session as stored
        self._active: dict[OwnerKey, str] = {}  # owner -> id of its active session, for cached ones
        self._no_active: set[OwnerKey] = set()
        self._floor: dict[str, int] = {}  # session id -> the highest version known to exist
        # anchors remembered, at the version they were remembered at, until the quiz's next save carries
        # them (a session read before they were remembered gets them there); `_unwritten`: not yet in the file
        self._remembered: dict[str, tuple[int, Anchor]] = {}
        self._unwritten: set[str] = set()
        self._soon = anchors.Soon(self._write_anchors)

    async def create(self, session: Session) -> Row:
        row = await self._store.create(session)
        self._keep(session)
        return row

    async def get(self, session_id: str) -> Session | None:
        cached = self._rows.get(session_id)
        if cached is not None:
            self._rows.move_to_end(session_id)
            return thaw(cached[1])
        for _ in range(STALE_READS):
            read = await self._store.get_row(session_id)
            if read is None:
                return None
            session = session_from_row(read)
            if self._keep(session):
                return session
            cached = self._rows.get(session_id)
            if cached is not None:  # a save kept a newer session while this read waited
                return thaw(cached[1])
        return session  # still behind a save that was refused: the next save says so

    async def recent(self, session_id: str, position: int | None = None) -> Session | None:
        return await self.get(session_id)  # the cache is never behind this process's own saves

    async def active(self, owner: Owner) -> Session | None:
        key = (owner.platform, owner.scope, owner.kind, owner.id)
        known = self._active.get(key)
        if known is not None and known in self._rows:
            return thaw(self._rows[known][1])
        if key in self._no_active:
            return None
        row = await self._store.active_row(owner)
        if row is None:
            if len(self._no_active) >= NO_ACTIVE_CAPACITY:
                self._no_active.clear()
            self._no_active.add(key)
            return None
        session = session_from_row(row)
        self._keep(session)
        return session

    async def write(self, unit: AnswerWrite) -> None:
        if unit.session is None:
            await self._store.write(unit)
            return
        await self.save(unit.session, unit.attempt, unit.card, parts=unit)

    async def active_of(self, platform: str, user_id: str) -> list[Session]:
        return await self._store.active_of(platform, user_id)

    async def save_anchor(self, session: Session) -> None:
        """Keep the session with its new anchor; it is written with its next save, or `anchors.WAIT` later.

        One process: the cache is what is read, so nothing waits for the file but a restart (or a
        kill in that moment, which loses it, as on PostgreSQL: `anchors.py`).
        """
        self._keep(session)
        self._kept_anchor(session.id, session.version, session.anchor)

    async def save_anchor_at(self, session_id: str, position: int | None, anchor: Anchor) -> bool:
        """As `save_anchor`, on the cached snapshot itself when the quiz is at `position`: no copy made or read."""
        cached = self._rows.get(session_id)
        if cached is None:
            return False
        fields = dict(cached[1])
        if position is not None and fields["position"] != position:
            return False
        fields["anchor"] = anchor
        self._rows[session_id] = (cached[0], tuple(fields.items()))  # what a thaw copies is shared, never changed
        self._rows.move_to_end(session_id)
        self._kept_anchor(session_id, fields["version"], anchor)
        return True

    def _kept_anchor(self, session_id: str, version: int, anchor: Anchor) -> None:
        self._remembered.pop(session_id, None)
        self._remembered[session_id] = (version, anchor)  # the newest last
        while len(self._remembered) > self._capacity:
            del self._remembered[next(iter(self._remembered))]
        self._unwritten.add(session_id)
        self._soon.ask()

    async def write_anchors(self) -> None:
        """Write the anchors kept and not yet saved, each where the quiz is still at that version (the version stays)."""
        await self._soon.run()

    async def _write_anchors(self) -> None:
        ids, self._unwritten = self._unwritten, set()
        unwritten = {i: self._remembered[i] for i in ids if i in self._remembered}
        if unwritten:
            await anchors.write_kept(self._store.db, unwritten)

    async def save(
        self, session: Session, attempt: Attempt | None = None, review: Review | None = None, *, parts: AnswerWrite | None = None
    ) -> Row:
        remembered = self._remembered.get(session.id)
        if remembered is not None and remembered[0] == session.version:
            session.anchor = remembered[1]  # kept after this session was read (its save is the quiz's next one)
        try:
            row = await self._store.save(session, attempt, review, parts=parts)
        except Conflict:
            self.drop(session.id)  # the stored row is newer than what we had: read it afresh next time
            self._raise_floor(session.id, session.version + 1)
            raise
        self._keep(session)  # as stored: `save` raised its version
        if remembered is not None and self._remembered.get(session.id) is remembered:
            del self._remembered[session.id]  # stored with this save
            self._unwritten.discard(session.id)
        return row

    def drop(self, session_id: str) -> None:
        """Forget one session (it changed elsewhere)."""
        old = self._rows.pop(session_id, None)
        self._done.pop(session_id, None)
        if old is not None:
            key = old[0]
            if self._active.get(key) == session_id:
                del self._active[key]

    def clear(self) -> None:
        """Forget everything (after a change made around the cache, such as deleting a learner's data)."""
        self._rows.clear()
        self._done.clear()
        self._active.clear()
        self._no_active.clear()
        self._floor.clear()

    async def close(self) -> None:
        await self._soon.close()
        await self._store.close()

    def _raise_floor(self, session_id: str, version: int) -> None:
        if len(self._floor) >= 2 * self._capacity and session_id not in self._floor:
            self._floor = {sid: self._floor[sid] for sid in self._rows if sid in self._floor}
        self._floor[session_id] = max(version, self._floor.get(session_id, version))

    def _keep(self, session: Session) -> bool:
        """Cache a snapshot of the session unless a newer version is known; return whether it was kept."""
        sid = session.id
        if session.version < self._floor.get(sid, session.version):
            return False
        self._raise_floor(sid, session.version)
        key = _owner_key(session)
        self._rows[sid] = (key, freeze(session))
        self._rows.move_to_end(sid)
        self._no_active.discard(key)
        if session.status == "active":
            self._active[key] = sid
            self._done.pop(sid, None)
        else:
            if self._active.get(key) == sid:
                del self._active[key]
                self._no_active.add(key)
            self._done[sid] = None
            self._done.move_to_end(sid)
            while len(self._done) > self._done_capacity:
                self.drop(next(iter(self._done)))
        while len(self._rows) > self._capacity:
            self.drop(next(iter(self._rows)))
        return True
