"""The serving bot never imports Alembic: a new database is migrated by a child process, one at the newest schema needs none."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import text

from bot.core.errors import StorageError
from bot.storage import open_repository
from bot.storage.database import HEAD_REVISION, MIGRATIONS

ROOT = Path(__file__).resolve().parents[2]

# Opens the repository as the serving bot does, then says what it imported and the schema it found.
PROBE = """
import asyncio, sys
from bot.storage import open_repository

async def main():
    repo = await open_repository(sys.argv[1], migrate_apart=sys.argv[2] == "apart")
    async with repo.engine.connect() as c:
        tables = (await c.exec_driver_sql("SELECT count(*) FROM attempts")).scalar_one()
    await repo.close()
    print("alembic imported:", "alembic" in sys.modules, "attempts:", tables)

asyncio.run(main())
"""


def _probe(url: str, how: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, url, how],
        capture_output=True, text=True, timeout=120, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_head_revision_is_alembics() -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    assert ScriptDirectory.from_config(config).get_current_head() == HEAD_REVISION


def test_a_new_database_is_migrated_apart_and_reopened_without_alembic(any_url: str) -> None:
    assert _probe(any_url, "apart") == "alembic imported: False attempts: 0"  # migrated by the child
    assert _probe(any_url, "here") == "alembic imported: False attempts: 0"  # at the newest schema: nothing to do


async def test_a_failing_migration_apart_is_one_clear_line(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'newer.db'}"
    repo = await open_repository(url)
    async with repo.engine.begin() as c:
        await c.execute(text("UPDATE alembic_version SET version_num = '9999_from_a_newer_bot'"))
    await repo.close()
    with pytest.raises(StorageError) as caught:
        await open_repository(url, migrate_apart=True)
    message = str(caught.value)
    assert message.startswith(f"Migrating the database {url} failed:") and "9999_from_a_newer_bot" in message
    assert "\n" not in message
