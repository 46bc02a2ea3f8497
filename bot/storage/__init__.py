"""Storage: the core's repository on SQLAlchemy Core, with Alembic migrations."""

from __future__ import annotations

from . import social_tables  # noqa: F401  (registers the social tables on the shared MetaData)
from .database import create_engine, describe_error, safe_url, upgrade
from .repository import SqlRepository


async def open_repository(url: str, *, migrate: bool = True) -> SqlRepository:
    """Create the engine, apply migrations and return the repository (raise StorageError)."""
    engine = create_engine(url)
    try:
        if migrate:
            await upgrade(engine, url)
    except BaseException:
        await engine.dispose()
        raise
    return SqlRepository(engine)


__all__ = ["SqlRepository", "create_engine", "describe_error", "open_repository", "safe_url", "upgrade"]
