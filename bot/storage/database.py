"""Open the database: engine, pragmas, migrations, and clear errors for a bad file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import event, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from bot.core.errors import StorageError

MIGRATIONS = Path(__file__).parent / "migrations"


def safe_url(url: str) -> str:
    """Render a database URL with any password hidden, for messages and logs."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "<unparseable database URL>"


def create_engine(url: str) -> AsyncEngine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, connect_args={"timeout": 5})
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    if parsed.get_backend_name() == "postgresql":
        return create_async_engine(url, pool_size=10, max_overflow=10, pool_pre_ping=True)
    raise StorageError(f"Unsupported database URL {safe_url(url)}: use sqlite+aiosqlite:// or postgresql+asyncpg://")


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _alembic_config(connection: Connection) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def _upgrade(connection: Connection) -> None:
    if connection.dialect.name == "postgresql":
        # Several bot processes may start at once: one migrates, the others wait.
        connection.execute(text("SELECT pg_advisory_xact_lock(7301)"))
    command.upgrade(_alembic_config(connection), "head")


def _current(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


async def upgrade(engine: AsyncEngine, url: str) -> str | None:
    """Apply migrations; turn driver errors into a StorageError an operator can act on."""
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_upgrade)
        async with engine.connect() as connection:
            return await connection.run_sync(_current)
    except (TimeoutError, SQLAlchemyError, OSError) as exc:
        raise StorageError(describe_error(exc, url)) from None


def describe_error(exc: BaseException, url: str) -> str:
    where = safe_url(url)
    original = exc.orig if isinstance(exc, DBAPIError) else exc
    detail = str(original).splitlines()[0] if str(original) else type(original).__name__
    lowered = detail.lower()
    if "file is not a database" in lowered or "malformed" in lowered:
        return f"The database {where} is not a valid SQLite database (corrupt or another kind of file). Move it away or point QUIZBOT_DATABASE_URL elsewhere."
    if "locked" in lowered:
        return f"The database {where} is locked by another program. Stop it, or use PostgreSQL to run several bot processes."
    if "unable to open" in lowered or "permission" in lowered or "readonly" in lowered:
        return f"The database {where} cannot be opened for writing ({detail})."
    return f"The database {where} could not be used: {detail}"
