"""Shared fixtures: a real SQLite database in a temporary folder, the core service over it."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.core import QuizService
from bot.core.packs import load_path
from bot.storage import SqlRepository, open_repository
from tests.fakes import FakeClock, LocalRunner

FIXTURES = Path(__file__).parent / "fixtures"
DEMO_PACK = FIXTURES / "packs" / "demo"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def runner() -> LocalRunner:
    return LocalRunner()


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'quizbot.db'}"


@pytest.fixture
async def repository(db_url: str) -> AsyncIterator[SqlRepository]:
    repo = await open_repository(db_url)
    yield repo
    await repo.close()


@pytest.fixture
async def service(repository: SqlRepository, runner: LocalRunner, clock: FakeClock) -> QuizService:
    svc = QuizService(
        repository=repository, runner=runner, clock=clock, rng=random.Random(7), admins=frozenset({"console:root"})
    )
    await svc.import_pack(load_path(DEMO_PACK).pack)
    return svc


async def hand_demo_to(service: QuizService, owner: str) -> None:
    """Make the stored `demo` pack the `owner` server's or workspace's (`discord:GUILD`, `slack:TEAM`), as
    if its admin had loaded it first: only then may that admin update or remove it from the chat."""
    await service.catalogue.remove("demo")  # the operator's copy (the harness loads it as the operator)
    await service.catalogue.import_pack(load_path(DEMO_PACK).pack, by=owner)
