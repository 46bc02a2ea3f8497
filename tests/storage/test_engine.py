"""The PostgreSQL engine's round trips: reads without BEGIN/ROLLBACK, a ping only for a connection left idle."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from sqlalchemy import text

from bot.core.errors import DatabaseFault
from bot.storage.base import Database
from bot.storage.database import create_engine
from tests.storage.conftest import PG_ADMIN


async def _backend(engine_url: str, *, idle_ping: float) -> tuple[Database, int]:
    db = Database(create_engine(engine_url, idle_ping=idle_ping))
    async with db.read() as connection:
        pid = int((await connection.execute(text("SELECT pg_backend_pid()"))).scalar_one())
    return db, pid


async def _terminate(pid: int) -> None:
    admin = await asyncpg.connect(PG_ADMIN)
    try:
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
    finally:
        await admin.close()


async def test_a_read_on_postgresql_runs_outside_a_transaction_block(pg_url: str) -> None:
    db = Database(create_engine(pg_url))
    current = text("SELECT txid_current()")  # the id of the transaction the statement runs in
    try:
        async with db.read() as connection:
            alone = [(await connection.execute(current)).scalar_one() for _ in range(2)]
        async with db.write() as connection:
            in_block = [(await connection.execute(current)).scalar_one() for _ in range(2)]
        assert alone[0] != alone[1]  # each statement its own transaction: no BEGIN was sent
        assert in_block[0] == in_block[1]  # a write is one transaction, as before
    finally:
        await db.engine.dispose()


async def test_an_idle_connection_the_server_cut_is_replaced_before_use(pg_url: str) -> None:
    db, pid = await _backend(pg_url, idle_ping=0.0)  # every returned connection counts as idle
    try:
        await _terminate(pid)  # as a server restart or a firewall would, while the connection sat in the pool
        async with db.read() as connection:
            again = int((await connection.execute(text("SELECT pg_backend_pid()"))).scalar_one())
        assert again != pid
    finally:
        await db.engine.dispose()


async def test_a_connection_in_steady_use_is_handed_out_without_a_ping(pg_url: str) -> None:
    db, pid = await _backend(pg_url, idle_ping=600.0)
    try:
        await _terminate(pid)
        with pytest.raises(DatabaseFault) as caught:  # no ping: the cut shows on the statement itself
            async with db.read() as connection:
                await connection.execute(text("SELECT 1"))
        assert caught.value.kind == "unavailable" and "cannot be reached" in str(caught.value)  # told apart by storage
        async with db.read() as connection:  # and the pool has let the dead connection go
            assert (await connection.execute(text("SELECT pg_backend_pid()"))).scalar_one() != pid
    finally:
        await db.engine.dispose()


async def test_a_write_waits_for_a_busy_pool_longer_than_a_statement_may_take(pg_url: str) -> None:
    # Every pooled connection busy (an overloaded process): an answer acknowledged meanwhile waits for
    # one and is stored, instead of failing after the statement timeout.
    from bot.storage.database import POOL_SIZE

    db = Database(create_engine(pg_url, timeout=0.5))
    held = [await db.engine.connect() for _ in range(POOL_SIZE)]
    try:

        async def write() -> int:
            async with db.write() as connection:
                return int((await connection.execute(text("SELECT 7"))).scalar_one())

        waiting = asyncio.ensure_future(write())
        await asyncio.sleep(1.5)  # three statement timeouts
        assert not waiting.done()
        for connection in held:
            await connection.close()
        held = []
        assert await asyncio.wait_for(waiting, 10) == 7
    finally:
        for connection in held:
            await connection.close()
        await db.engine.dispose()
