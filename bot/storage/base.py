"""What every part of the repository shares: the engine and the write path."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine


class Base:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._sqlite = engine.dialect.name == "sqlite"
        # SQLite has one writer at a time: queueing writers here avoids busy-waiting in the driver.
        self._write_lock = asyncio.Lock()

    @property
    def engine(self) -> AsyncEngine:
        return self._engine

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        if self._sqlite:
            async with self._write_lock, self._engine.begin() as connection:
                yield connection
        else:
            async with self._engine.begin() as connection:
                yield connection
