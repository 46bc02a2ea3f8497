"""A cache in front of the session store, for a bot that is the database's only user (SQLite).

It keeps each session as last stored and hands out copies: a caller may change what it got as it
likes, and nothing of that shows to anyone until a save succeeds. A save that is refused drops the
cached copy, so the next read comes from the database.
"""

from __future__ import annotations

from collections import OrderedDict

from bot.core.model import Attempt, Owner, Session
from bot.core.ports import Conflict
from bot.core.review import Review

from .sessions import SessionStore

CAPACITY = 20_000  # sessions kept; the least recently used go first
NO_ACTIVE_CAPACITY = 100_000  # owners remembered to have no active quiz

OwnerKey = tuple[str, str, str, str]


def _owner_key(owner: Owner) -> OwnerKey:
    return (owner.platform, owner.scope, owner.kind, owner.id)


class CachedSessions:
    """The SessionStore interface, answered from memory where it can be."""

    def __init__(self, store: SessionStore, capacity: int = CAPACITY) -> None:
        self._store = store
        self._capacity = capacity
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._active: dict[OwnerKey, str] = {}  # owner -> id of its active session, for cached ones
        self._no_active: set[OwnerKey] = set()

    async def create(self, session: Session) -> None:
        await self._store.create(session)
        self._keep(session.copy())

    async def get(self, session_id: str) -> Session | None:
        cached = self._sessions.get(session_id)
        if cached is not None:
            self._sessions.move_to_end(session_id)
            return cached.copy()
        session = await self._store.get(session_id)
        if session is not None:
            self._keep(session.copy())
        return session

    async def active(self, owner: Owner) -> Session | None:
        key = _owner_key(owner)
        known = self._active.get(key)
        if known is not None and known in self._sessions:
            return self._sessions[known].copy()
        if key in self._no_active:
            return None
        session = await self._store.active(owner)
        if session is None:
            if len(self._no_active) >= NO_ACTIVE_CAPACITY:
                self._no_active.clear()
            self._no_active.add(key)
            return None
        self._keep(session.copy())
        return session

    async def save(self, session: Session, attempt: Attempt | None = None, review: Review | None = None) -> None:
        try:
            await self._store.save(session, attempt, review)
        except Conflict:
            self.drop(session.id)  # the stored row is newer than what we had: read it afresh next time
            raise
        self._keep(session.copy())

    def drop(self, session_id: str) -> None:
        """Forget one session (it changed elsewhere)."""
        old = self._sessions.pop(session_id, None)
        if old is not None:
            key = _owner_key(old.owner)
            if self._active.get(key) == session_id:
                del self._active[key]

    def clear(self) -> None:
        """Forget everything (after a change made around the cache, such as deleting a learner's data)."""
        self._sessions.clear()
        self._active.clear()
        self._no_active.clear()

    async def close(self) -> None:
        await self._store.close()

    def _keep(self, session: Session) -> None:
        self._sessions[session.id] = session
        self._sessions.move_to_end(session.id)
        key = _owner_key(session.owner)
        self._no_active.discard(key)
        if session.status == "active":
            self._active[key] = session.id
        elif self._active.get(key) == session.id:
            del self._active[key]
            self._no_active.add(key)
        while len(self._sessions) > self._capacity:
            self.drop(next(iter(self._sessions)))
