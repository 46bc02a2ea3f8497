"""Storage: the core's repository on SQLAlchemy Core, with Alembic migrations."""

from __future__ import annotations

from typing import Literal

from . import (
    daily_tables,  # noqa: F401  (registers the daily tables on the shared MetaData)
    social_tables,  # noqa: F401  (registers the social tables on the shared MetaData)
    work_tables,  # noqa: F401  (registers the unfinished work table on the shared MetaData)
)
from .daily import DailyRepository
from .database import DEFAULT_TIMEOUT, check_writable, create_engine, describe_error, safe_url, upgrade
from .repository import SqlRepository


async def open_repository(
    url: str,
    *,
    migrate: bool = True,
    db_timeout: float = DEFAULT_TIMEOUT,
    synchronous: Literal["FULL", "NORMAL"] = "FULL",
    migrate_apart: bool = False,
) -> SqlRepository:
    """Create the engine, apply migrations, check it can be written, and return the repository (raise StorageError).

    `migrate_apart`: migrations run in a child process (the serving bot: see `database.upgrade`).
    """
    engine = create_engine(url, timeout=db_timeout, synchronous=synchronous)
    try:
        if migrate:
            await upgrade(engine, url, apart=migrate_apart)
    except BaseException:
        await engine.dispose()
        raise
    return SqlRepository(engine)


__all__ = [
    "DailyRepository",
    "SqlRepository",
    "check_writable",
    "create_engine",
    "describe_error",
    "open_repository",
    "safe_url",
    "upgrade",
]
