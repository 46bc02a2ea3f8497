"""Throwaway databases for storage tests: a SQLite file, or a fresh database on the local PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import asyncpg
import pytest
from alembic import command
from sqlalchemy.engine import Connection

from bot.storage import SqlRepository, open_repository
from bot.storage.database import _alembic_config
from tests.storage import clicks

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"


async def _pg_database() -> AsyncIterator[str]:
    name = f"quizbot_test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(PG_ADMIN)
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


@pytest.fixture(params=["sqlite", "postgresql"])
async def any_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'q.db'}"
        return
    async for url in _pg_database():
        yield url


@pytest.fixture
async def pg_url() -> AsyncIterator[str]:
    async for url in _pg_database():
        yield url


@pytest.fixture
async def pg_quiz_repo(pg_url: str) -> AsyncIterator[SqlRepository]:
    """A repository on a fresh PostgreSQL database holding one quiz: "s1", Ann's, five items."""
    repository = await open_repository(pg_url)
    await repository.create_session(clicks.new_session("s1", "ann", 5))
    yield repository
    await repository.close()


def migrate_to(revision: str) -> Callable[[Connection], None]:
    """A step for `connection.run_sync`: upgrade to `revision`, or downgrade to it when it starts with `-`."""

    def step(connection: Connection) -> None:
        if revision.startswith("-"):
            command.downgrade(_alembic_config(connection), revision[1:])
        else:
            command.upgrade(_alembic_config(connection), revision)

    return step
