"""What every store shares: the engine, whether it is SQLite, and the one write path."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine


class Database:
    """Hand out connections to read and transactions to write.

    SQLite has one writer at a time: queueing writers on an asyncio lock here avoids busy-waiting
    in the driver. Every store of one repository shares one Database, so they share that queue.
    """

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.sqlite = engine.dialect.name == "sqlite"
        self.write_lock = asyncio.Lock()

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        """Yield a connection for reading (no transaction is kept open after the block)."""
        async with self.engine.connect() as connection:
            yield connection

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """Yield a connection in a transaction, committed when the block ends and rolled back on error."""
        if self.sqlite:
            async with self.write_lock, self.engine.begin() as connection:
                yield connection
        else:
            async with self.engine.begin() as connection:
                yield connection
