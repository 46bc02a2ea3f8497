"""/readyz on a full or read-only disk: the database check commits a heartbeat row, a write that must reach the file.

An insert that is rolled back (or a read) never leaves SQLite's page cache: on a full disk it passes,
so such a check said "database: ready" while every answer failed.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import insert

from bot.app import App
from bot.core import QuizService, SystemClock
from bot.metrics import Metrics, health_app
from bot.runner import readiness_checks
from bot.settings import Settings
from bot.storage import SqlRepository, create_engine, open_repository
from bot.storage.tables import heartbeats
from tests.disks import empty_wal, fill, read_only_view, small_disk
from tests.fakes import LocalRunner


def sqlite(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


async def readyz(repository: SqlRepository, url: str) -> tuple[int, dict[str, Any]]:
    service = QuizService(repository=repository, runner=None, clock=SystemClock())
    app = App(settings=Settings(database_url=url), repository=repository, service=service, runner=LocalRunner())
    async with TestClient(TestServer(health_app(Metrics(), readiness_checks(app)))) as client:
        response = await client.get("/readyz")
        return response.status, json.loads(await response.text())["checks"]


async def test_readyz_fails_on_a_full_disk_that_a_rolled_back_write_never_reaches(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk") as disk:
        db = disk / "quiz.db"
        repository = await open_repository(sqlite(db))
        try:
            assert await readyz(repository, sqlite(db)) == (200, {"database": "ready", "platforms": "ready", "sandbox": "ready"})
            empty_wal(db)
            filler = fill(disk)
            async with repository.engine.connect() as connection:  # the check it replaced: passes on a full disk
                transaction = await connection.begin()
                await connection.execute(insert(heartbeats).values(process="rolled back", at=datetime.now(UTC)))
                await transaction.rollback()
            assert await repository.get_setting("anything") is None  # and reads still work

            status, checks = await readyz(repository, sqlite(db))
            assert status == 503 and checks["database"] == "full"

            filler.unlink()  # space again: ready again, nothing to restart
            assert await readyz(repository, sqlite(db)) == (200, {"database": "ready", "platforms": "ready", "sandbox": "ready"})
        finally:
            await repository.close()


async def test_readyz_fails_on_a_read_only_disk(tmp_path: Path) -> None:
    data = tmp_path / "data"
    running = await open_repository(sqlite(data / "quiz.db"))  # the bot's files stay open (WAL, shared memory)
    try:
        with read_only_view(data, tmp_path / "read-only") as view:
            repository = SqlRepository(create_engine(sqlite(view / "quiz.db")))
            try:
                assert await repository.get_setting("anything") is None  # reads work: a read-only check would pass
                status, checks = await readyz(repository, sqlite(view / "quiz.db"))
                assert status == 503 and checks["database"] == "read-only"
            finally:
                await repository.close()
    finally:
        await running.close()
