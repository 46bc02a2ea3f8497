"""Group commit: concurrent session saves share one transaction and one statement per table.

SQLite has a single writer, and every statement through aiosqlite is a round trip to its thread.
Saving each answer in its own transaction caps a bot at a few hundred answers a second; batching
the saves that arrive while a transaction runs keeps every save durable before it returns, at a
fraction of the cost.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

MAX_BATCH = 256


@dataclass
class SaveOp:
    session_update: dict[str, Any]
    expected_version: int
    attempt: dict[str, Any] | None
    review: dict[str, Any] | None
    future: asyncio.Future[None]
    insert: bool = False  # a new session: insert the row instead of updating it


BatchApply = Callable[[AsyncConnection, list[SaveOp]], Awaitable[list[BaseException | None]]]


class GroupWriter:
    def __init__(self, engine: AsyncEngine, lock: asyncio.Lock, apply: BatchApply) -> None:
        self._engine = engine
        self._lock = lock
        self._apply = apply
        self._pending: list[SaveOp] = []
        self._task: asyncio.Task[None] | None = None

    async def save(self, op: SaveOp) -> None:
        self._pending.append(op)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._drain())
        await op.future

    async def _drain(self) -> None:
        while self._pending:
            batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
            try:
                async with self._lock, self._engine.begin() as connection:
                    outcomes = await self._apply(connection, batch)
            except BaseException as exc:  # the whole transaction failed: every save in it failed
                for op in batch:
                    if not op.future.done():
                        op.future.set_exception(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise
                continue
            for op, outcome in zip(batch, outcomes, strict=True):
                if op.future.done():
                    continue
                if outcome is None:
                    op.future.set_result(None)
                else:
                    op.future.set_exception(outcome)

    async def close(self) -> None:
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
