"""Fixtures: a database of each kind, the stores over it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.daily.support import Stores, open_stores, postgres_url


@pytest.fixture(params=["sqlite", "postgresql"])
async def any_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'daily.db'}"
        return
    async with postgres_url() as url:
        yield url


@pytest.fixture
async def stores(any_url: str) -> AsyncIterator[Stores]:
    s = await open_stores(any_url)
    yield s
    await s.close()


@pytest.fixture
async def sqlite_stores(tmp_path: Path) -> AsyncIterator[Stores]:
    s = await open_stores(f"sqlite+aiosqlite:///{tmp_path / 'daily.db'}")
    yield s
    await s.close()
