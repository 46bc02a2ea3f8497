"""Group commit: concurrent session saves share one transaction and one statement per table.

SQLite has a single writer, and every statement through aiosqlite is a round trip to its thread.
Saving each answer in its own transaction caps a bot at a few hundred answers a second; batching
the saves that arrive while a transaction runs keeps every save durable before it returns, at a
fraction of the cost.

Each save in a group is still kept or refused on its own: the apply function reports a refusal
(a Conflict) per save, and if the group's transaction fails as a whole, each of its saves is tried
again alone, so one bad save cannot sink the others.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.core.errors import DatabaseFault

MAX_BATCH = 256


class BatchMismatch(Exception):
    """The database changed other rows than the group's checks predicted; retry each save alone."""


def _new_future() -> asyncio.Future[None]:
    return asyncio.get_running_loop().create_future()


@dataclass(eq=False)
class SaveOp:
    """One save: the session's row, the version it must still have, and its attempt and card rows."""

    row: dict[str, Any]
    expected_version: int
    attempt: dict[str, Any] | None
    review: dict[str, Any] | None
    insert: bool = False  # a new session: insert the row instead of updating it
    work: str | None = None  # the row of unfinished work the attempt settles: deleted with it, or no save
    parts: Any = None  # the rest of the answer's unit of work (`bot.core.answer.AnswerWrite`): day, leech
    future: asyncio.Future[None] = field(default_factory=_new_future)


BatchApply = Callable[[AsyncConnection, list[SaveOp]], Awaitable[list[BaseException | None]]]


class GroupWriter:
    """Queue saves and apply whatever has queued in one transaction at a time."""

    def __init__(self, engine: AsyncEngine, lock: asyncio.Lock, apply: BatchApply) -> None:
        self._engine = engine
        self._lock = lock
        self._apply = apply
        self._pending: list[SaveOp] = []
        self._task: asyncio.Task[None] | None = None

    async def save(self, op: SaveOp) -> None:
        """Queue the save and wait until it is durable (or refused: its exception is raised here)."""
        self._pending.append(op)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._drain())
        await op.future

    async def _drain(self) -> None:
        while self._pending:
            batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
            try:
                outcomes = await self._transaction(batch)
            except asyncio.CancelledError as exc:
                _fail(batch, exc)
                raise
            except DatabaseFault as exc:  # the database itself failed (full, read-only, locked): alone, each would too
                _fail(batch, exc)
                continue
            except Exception as exc:
                if len(batch) == 1:
                    _fail(batch, exc)
                    continue
                for op in batch:  # the group failed as a whole: each save on its own
                    try:
                        outcomes = await self._transaction([op])
                    except asyncio.CancelledError as one_exc:
                        _fail(batch, one_exc)
                        raise
                    except Exception as one_exc:
                        _fail([op], one_exc)
                    else:
                        _settle([op], outcomes)
                continue
            _settle(batch, outcomes)

    async def _transaction(self, batch: list[SaveOp]) -> list[BaseException | None]:
        async with self._lock, self._engine.begin() as connection:
            return await self._apply(connection, batch)

    async def close(self) -> None:
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)


def _fail(batch: list[SaveOp], exc: BaseException) -> None:
    for op in batch:
        if not op.future.done():
            op.future.set_exception(exc)


def _settle(batch: list[SaveOp], outcomes: list[BaseException | None]) -> None:
    for op, outcome in zip(batch, outcomes, strict=True):
        if op.future.done():
            continue
        if outcome is None:
            op.future.set_result(None)
        else:
            op.future.set_exception(outcome)
