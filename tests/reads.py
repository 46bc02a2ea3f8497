"""A counting wrapper of the repository port: how often a session is read, for the one-read-per-click tests."""

from __future__ import annotations

from typing import Any

from bot.core.model import Owner, Session

SESSION_READS = ("get_session", "active_session", "active_sessions_of")


class CountingRepository:
    """The storage port as given, counting each session read (every other call passes through unchanged)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.reads: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def get_session(self, session_id: str) -> Session | None:
        self.reads.append(f"get_session {session_id}")
        return await self.inner.get_session(session_id)  # type: ignore[no-any-return]

    async def recent_session(self, session_id: str, position: int | None = None) -> Session | None:
        self.reads.append(f"recent_session {session_id}")  # a guess: no read where this process stored it last
        return await self.inner.recent_session(session_id, position)  # type: ignore[no-any-return]

    async def active_session(self, owner: Owner) -> Session | None:
        self.reads.append(f"active_session {owner.id}")
        return await self.inner.active_session(owner)  # type: ignore[no-any-return]

    async def active_sessions_of(self, platform: str, user_id: str) -> list[Session]:
        self.reads.append(f"active_sessions_of {user_id}")
        return await self.inner.active_sessions_of(platform, user_id)  # type: ignore[no-any-return]

    def counted(self) -> list[str]:
        """The reads since the last call."""
        reads, self.reads = self.reads, []
        return reads
