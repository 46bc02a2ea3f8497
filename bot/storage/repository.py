"""The core's Repository port, put together from one store per concern.

    packs     PackStore       packs, their owners, questions' digests, per-scope switches (packs.py)
    sessions  SessionStore    quizzes, saved with their attempt and card            (sessions.py)
              CachedSessions  the same, answered from memory on SQLite              (session_cache.py)
    progress  ProgressStore   history and stats                                     (progress.py)
    settings  SettingsStore   small named values                                    (settings_store.py)
    work      WorkStore       requests in progress, for work a restart dropped      (work.py)
    pending   PendingPackStore  converted packs waiting for their admin              (pending.py)

SQLite means one bot process: sessions are cached there. PostgreSQL may be shared by several
processes: every read goes to the database.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from sqlalchemy.ext.asyncio import AsyncEngine

from bot.core.faults import FaultLog
from bot.core.model import Anchor, Attempt, History, ImportReport, Owner, PackInfo, Review, Session, UserStats
from bot.core.packs import Pack

from .base import Database
from .packs import PackStore
from .pending import PendingPackStore
from .progress import ProgressStore
from .session_cache import CachedSessions
from .sessions import SessionStore
from .settings_store import SettingsStore
from .work import WorkStore

if TYPE_CHECKING:
    from bot.core.answer import AnswerWrite


class SqlRepository:
    """Implements `bot.core.ports.Repository` by handing each call to the store it concerns."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.db = Database(engine)
        self.packs = PackStore(self.db)
        store = SessionStore(self.db)
        self.sessions: SessionStore | CachedSessions = CachedSessions(store) if self.db.sqlite else store
        self.progress = ProgressStore(self.db)
        self.settings = SettingsStore(self.db)
        self.work = WorkStore(self.db)
        self.pending = PendingPackStore(self.db)

    @property
    def engine(self) -> AsyncEngine:
        return self.db.engine

    @property
    def faults(self) -> FaultLog:
        """The log of the failures of storage's writes in the background (one line per kind per interval)."""
        return self.db.faults

    async def close(self) -> None:
        await self.sessions.close()
        await self.db.engine.dispose()

    # packs
    async def get_pack(self, pack_id: str) -> Pack | None:
        return await self.packs.get(pack_id)

    async def list_packs(self, scope: str | None = None) -> list[PackInfo]:
        return await self.packs.list(scope)

    async def import_pack(self, pack: Pack, *, force: bool = False, by: str | None = None) -> ImportReport:
        return await self.packs.put(pack, force=force, by=by)

    async def delete_pack(self, pack_id: str, *, by: str | None = None) -> bool:
        return await self.packs.remove(pack_id, by=by)

    async def pack_owners(self) -> dict[str, str | None]:
        return await self.packs.owners()

    async def set_pack_enabled(self, scope: str, pack_id: str, enabled: bool) -> None:
        await self.packs.set_enabled(scope, pack_id, enabled)

    # sessions
    async def create_session(self, session: Session) -> None:
        await self.sessions.create(session)

    async def get_session(self, session_id: str) -> Session | None:
        return await self.sessions.get(session_id)

    async def active_session(self, owner: Owner) -> Session | None:
        return await self.sessions.active(owner)

    async def recent_session(self, session_id: str, position: int | None = None) -> Session | None:
        return await self.sessions.recent(session_id, position)

    async def write_answer(self, unit: AnswerWrite) -> None:
        """Write a graded answer's unit of work in one transaction (`bot.storage.answers`), or raise Conflict."""
        await self.sessions.write(unit)
        if unit.attempt is not None and unit.attempt.work is not None:
            self.work.settled(unit.attempt.work)  # stored: the transaction deleted its unfinished-work row

    async def active_sessions_of(self, platform: str, user_id: str) -> list[Session]:
        return await self.sessions.active_of(platform, user_id)

    async def save_session(self, session: Session, attempt: Attempt | None = None, review: Review | None = None) -> None:
        await self.sessions.save(session, attempt, review)

    async def save_anchor(self, session: Session) -> None:
        await self.sessions.save_anchor(session)

    async def save_anchor_at(self, session_id: str, position: int | None, anchor: Anchor) -> bool:
        return await self.sessions.save_anchor_at(session_id, position, anchor)

    async def write_anchors(self) -> None:
        """Write the anchors waiting now (`anchors.py`): other processes, and a restart, see them at once."""
        await self.sessions.write_anchors()

    # progress
    async def history(self, platform: str, user_id: str, packs: Sequence[str]) -> dict[tuple[str, str], History]:
        return await self.progress.history(platform, user_id, packs)

    async def learner_zone(self, platform: str, user_id: str) -> str:
        return await self.progress.learner_zone(platform, user_id)

    async def user_stats(
        self, platform: str, user_id: str, now: datetime, *, due_by: Callable[[ZoneInfo], datetime] | None = None
    ) -> UserStats:
        return await self.progress.user_stats(platform, user_id, now, due_by=due_by)

    # settings
    async def get_setting(self, key: str) -> str | None:
        return await self.settings.get(key)

    async def set_setting(self, key: str, value: str) -> None:
        await self.settings.set(key, value)


