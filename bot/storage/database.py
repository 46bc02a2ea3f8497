"""Open the database: engine, pragmas, migrations, start-up checks, and clear errors for a bad file.

Every fault an operator can cause (an unreadable URL, a driver that is not async, a folder that
cannot be created, a damaged or read-only file, a lock held by another program, a server that
never answers) becomes one StorageError line that names the database without its password.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from sqlalchemy import event, insert, inspect, text, update
from sqlalchemy.engine import URL, Connection, ExceptionContext, make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError, IntegrityError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import QueuePool

from bot.core.errors import DatabaseFault, StorageError
from bot.logs import hide_query_secrets

from . import sqlite_link
from . import tables as t

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).parent / "migrations"
# The newest migration's revision (a test checks it against Alembic's scripts). A database already
# at it is opened without importing Alembic, whose modules (with Mako's and Pygments') are 9 MB of
# a bot process that would never use them again.
HEAD_REVISION = "0012_pack_owners"
DEFAULT_TIMEOUT = 10.0  # seconds to connect to PostgreSQL, and for one statement there
SQLITE_BUSY_SECONDS = 5.0  # how long SQLite waits for another writer's lock
IDLE_PING_SECONDS = 10.0  # PostgreSQL: a pooled connection unused this long is pinged before it is handed out
POOL_SIZE = 20  # PostgreSQL: connections each process keeps open
# SQLite's page cache per connection, in KiB (its default is 2,000): ten connections at the default
# held 20 MB of the bot's memory after a 20 s bench run; at 512 the bench used 12-16 MB less and no
# more CPU per answer (docs/reference/measured.md). A page not in it is read from the OS's cache.
SQLITE_CACHE_KIB = 512
SQLITE_POOL_SIZE = 10  # SQLite: connections kept open, and no more (200 learners starting at once opened 180 and closed them)
# PostgreSQL: how long a request waits for one of them. Far longer than `timeout`: all twenty busy means
# the process is overloaded, not that the server is gone, and a click acknowledged after the adapters'
# 2 s (Slack and Discord want an answer in 3) must still be stored, late, rather than lost.
POOL_WAIT_SECONDS = 60.0
STATEMENT_CACHE = 500  # PostgreSQL: prepared statements kept per connection (SQLAlchemy's default is 100)
PROBE_KEY = "quizbot.write-probe"  # the heartbeat row the write check commits
URL_FORMS = "sqlite+aiosqlite:///path/to/file.db or postgresql+asyncpg://user@host/db"


# asyncpg.connect()'s keywords (and SQLAlchemy's prepared_statement_cache_size): the query parameters a URL may hold.
ASYNCPG_PARAMETERS = frozenset({
    "host", "port", "user", "password", "passfile", "service", "servicefile", "database", "timeout",
    "command_timeout", "statement_cache_size", "max_cached_statement_lifetime", "max_cacheable_statement_size",
    "ssl", "direct_tls", "target_session_attrs", "krbsrvname", "gsslib", "prepared_statement_cache_size",
})  # fmt: skip
LIBPQ_SPELLINGS = {"sslmode": "asyncpg spells it ssl=require, or disable, prefer, verify-ca, verify-full",
                   "connect_timeout": "set QUIZBOT_DATABASE_TIMEOUT_SECONDS instead"}  # libpq's names, for asyncpg; fmt: skip


def safe_url(url: str) -> str:
    """Render a database URL with its password hidden, in the userinfo (`user:***@`) or the query (`password=***`)."""
    try:
        return hide_query_secrets(make_url(url).render_as_string(hide_password=True))
    except Exception:
        return "<unparseable database URL>"


def _check_asyncpg_query(parsed: URL, where: str) -> None:
    """Raise StorageError naming each query parameter asyncpg.connect() does not take (its TypeError is a traceback)."""
    if unknown := sorted(key for key in parsed.query if key not in ASYNCPG_PARAMETERS):
        named = ", ".join(f"`{key}`" + (f" ({LIBPQ_SPELLINGS[key]})" if key in LIBPQ_SPELLINGS else "") for key in unknown)
        raise StorageError(f"The database URL {where} has {'parameters' if unknown[1:] else 'a parameter'} asyncpg does not take: {named}. "
                           f"It takes: {', '.join(sorted(ASYNCPG_PARAMETERS))}.")  # fmt: skip


def _parse(url: str) -> URL:
    try:
        return make_url(url)
    except (SQLAlchemyError, ValueError, TypeError):
        raise StorageError(f"The database URL cannot be read (QUIZBOT_DATABASE_URL): write {URL_FORMS}") from None


def create_engine(
    url: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    idle_ping: float = IDLE_PING_SECONDS,
    busy: float = SQLITE_BUSY_SECONDS,
    synchronous: Literal["FULL", "NORMAL"] = "FULL",
    pool_wait: float = POOL_WAIT_SECONDS,
) -> AsyncEngine:
    """Build the engine for a sqlite+aiosqlite or postgresql+asyncpg URL; raise StorageError for anything else.

    `timeout` bounds connecting to PostgreSQL and each statement there, so a server that accepts
    connections but never answers fails in seconds rather than minutes. A request waits up to
    `pool_wait` seconds for a pooled connection (PostgreSQL's twenty, SQLite's ten: a connection
    opened for a burst and closed after it cost a thread, the file's opening and five statements);
    a PostgreSQL one unused for `idle_ping` seconds is pinged before it is handed out. SQLite waits up to
    `busy` seconds for another writer's lock, and syncs every commit (`synchronous`: NORMAL only to
    measure what FULL costs, in bench/core_bench.py). Every driver error `classify` recognises is raised as
    a `DatabaseFault` (`_raise_faults`).
    """
    parsed = _parse(url)
    backend, driver = parsed.get_backend_name(), parsed.get_driver_name()
    where = safe_url(url)
    try:
        if backend == "sqlite":
            if driver != "aiosqlite":
                raise StorageError(f"The database URL {where} does not name an async driver: write sqlite+aiosqlite:///...")
            _make_folder(parsed, where)
            # One trip to aiosqlite's thread per statement, not four (`sqlite_link.py`).
            dialect = parsed.get_dialect()
            args, options = dialect().create_connect_args(parsed)
            # A file's connections are pooled (an in-memory database is one connection, kept).
            pooled = issubclass(cast(Any, dialect).get_pool_class(parsed), QueuePool)
            engine = create_async_engine(
                parsed,
                async_creator=sqlite_link.creator(*args, **{**options, "timeout": busy}),
                **({"pool_size": SQLITE_POOL_SIZE, "max_overflow": 0, "pool_timeout": pool_wait} if pooled else {}),
            )
            event.listen(engine.sync_engine, "connect", _sqlite_pragmas(busy, synchronous))
            _raise_faults(engine, url)
            return engine
        if backend == "postgresql":
            if driver != "asyncpg":
                raise StorageError(f"The database URL {where} does not name an async driver: write postgresql+asyncpg://...")
            _check_asyncpg_query(parsed, where)
            engine = create_async_engine(
                parsed,
                # Twenty kept, none beyond: a connection opened for a burst and closed after it cost
                # 3.6 ms of CPU to open (and its statements prepared again); under load the overflow
                # of 10 more opened and closed one every 8 answers (bench/core_bench.py --learners 20).
                pool_size=POOL_SIZE,
                max_overflow=0,
                pool_timeout=pool_wait,
                connect_args={
                    "timeout": timeout,
                    "command_timeout": timeout,
                    "prepared_statement_cache_size": STATEMENT_CACHE,
                },
            )
            _ping_when_idle(engine, idle_ping)
            _raise_faults(engine, url)
            return engine
    except StorageError:
        raise
    except (SQLAlchemyError, ImportError, ValueError, TypeError) as exc:
        raise StorageError(f"The database URL {where} cannot be used ({_detail(exc)}): write {URL_FORMS}") from None
    raise StorageError(f"Unsupported database URL {where}: use sqlite+aiosqlite:// or postgresql+asyncpg://")


def _ping_when_idle(engine: AsyncEngine, idle_seconds: float) -> None:
    """Ping a pooled PostgreSQL connection before use only when it sat unused for `idle_seconds`.

    SQLAlchemy's pool_pre_ping pings on every checkout, and its asyncpg ping is three round trips
    (BEGIN, an empty statement, ROLLBACK): under load that was a quarter of a click's time. A
    connection in steady use has just proved itself; one that sat idle may have been cut by a
    server restart or a firewall, and a failed ping replaces it before any statement runs on it.
    """
    pool = engine.sync_engine.pool

    def checkin(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    def checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.pop("idle_since", None)
        if since is None or time.monotonic() - since < idle_seconds:
            return
        try:
            dbapi_connection.ping()
        except Exception as exc:  # any failure: the pool discards this connection and connects again
            raise DisconnectionError(f"an idle connection failed its ping ({type(exc).__name__})") from exc

    event.listen(pool, "checkin", checkin)
    event.listen(pool, "checkout", checkout)


def _make_folder(parsed: URL, where: str) -> None:
    database = parsed.database or ""
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    folder = Path(database).parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"The folder {folder} for the database {where} cannot be created ({exc.strerror or exc})") from None


def _sqlite_pragmas(busy: float, synchronous: str) -> Callable[[Any, Any], None]:
    def pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        # FULL: a commit is on the disk before it returns, so an answer whose feedback a learner saw
        # survives a power cut or a disk gone read-only (NORMAL may lose the last commits in WAL mode).
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.execute(f"PRAGMA busy_timeout={int(busy * 1000)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA cache_size=-{SQLITE_CACHE_KIB}")
        cursor.close()

    return pragmas


def _alembic_config(connection: Connection) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def _upgrade(connection: Connection) -> None:
    if connection.dialect.name == "postgresql":
        # Several bot processes may start at once: one migrates, the others wait.
        connection.execute(text("SELECT pg_advisory_xact_lock(7301)"))
    from alembic import command

    command.upgrade(_alembic_config(connection), "head")


def _current(connection: Connection) -> str | None:
    """The database's revision as Alembic keeps it (None: no schema yet)."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    revision = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    return None if revision is None else str(revision)


async def upgrade(engine: AsyncEngine, url: str, *, check: bool = True, apart: bool = False) -> str | None:
    """Apply migrations, then check the database can be read whole and written; raise StorageError in one line.

    A database at `HEAD_REVISION` needs none. `apart`: a file or server database is migrated by a
    child process (`quizbot db upgrade`), so that the bot never imports Alembic (an in-memory one,
    which no other process can see, is migrated here).
    """
    try:
        async with engine.connect() as connection:
            revision = await connection.run_sync(_current)
        if revision != HEAD_REVISION:
            if apart and engine.url.database not in (None, "", ":memory:"):
                await _upgrade_apart(url)
            else:
                async with engine.begin() as connection:
                    await connection.run_sync(_upgrade)
            async with engine.connect() as connection:
                revision = await connection.run_sync(_current)
        if check:
            await check_integrity(engine, url)
            await check_writable(engine, url)
        return revision
    except StorageError:
        raise
    except (TimeoutError, SQLAlchemyError, OSError) as exc:
        raise StorageError(describe_error(exc, url)) from None


async def _upgrade_apart(url: str) -> None:
    """Run `quizbot db upgrade` on `url` in a child process; its error line as StorageError."""
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main(['db', 'upgrade']))",
        env={**os.environ, "QUIZBOT_DATABASE_URL": url},  # not on its command line, where `ps` shows it
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, errors = await child.communicate()
    if child.returncode != 0:
        lines = errors.decode(errors="replace").strip().splitlines()
        last = lines[-1].removeprefix("Database error: ") if lines else f"exit code {child.returncode}"
        raise StorageError(f"Migrating the database {safe_url(url)} failed: {last}")


async def check_integrity(engine: AsyncEngine, url: str) -> None:
    """On SQLite, read every page (PRAGMA quick_check): a damaged page fails start, not a later action."""
    if engine.dialect.name != "sqlite":
        return
    try:
        async with engine.connect() as connection:
            rows = (await connection.exec_driver_sql("PRAGMA quick_check(1)")).scalars().all()
    except (TimeoutError, SQLAlchemyError, OSError) as exc:
        raise StorageError(describe_error(exc, url)) from None
    if rows != ["ok"]:
        first = str(rows[0]).splitlines()[0] if rows else "no answer"
        raise StorageError(
            f"The database {safe_url(url)} is damaged ({first}). Restore a backup, or move it away and point QUIZBOT_DATABASE_URL elsewhere."
        )


async def check_writable(engine: AsyncEngine, url: str, *, wait: float | None = None, process: str = PROBE_KEY) -> None:
    """Commit this process's heartbeat row; raise StorageError in one line when that fails.

    This is the readiness check. The write is committed (not rolled back), so on SQLite it reaches
    the file: a read-only or full disk, a read-only file, a lock held by another program, a
    read-only PostgreSQL (a standby) or an unreachable server all fail it. `wait` caps how long
    SQLite waits for another writer's lock (default SQLITE_BUSY_SECONDS).
    """
    sqlite_wait = engine.dialect.name == "sqlite" and wait is not None
    try:
        async with engine.connect() as connection:
            if sqlite_wait:
                usual = (await connection.exec_driver_sql("PRAGMA busy_timeout")).scalar_one()
                await connection.commit()
            try:
                async with connection.begin():
                    if sqlite_wait:
                        await connection.exec_driver_sql(f"PRAGMA busy_timeout={max(0, int((wait or 0) * 1000))}")
                    beat = t.heartbeats.c
                    now = datetime.now(UTC)
                    done = await connection.execute(update(t.heartbeats).where(beat.process == process[:64]).values(at=now))
                    if done.rowcount == 0:
                        await connection.execute(insert(t.heartbeats).values(process=process[:64], at=now))
            finally:
                if sqlite_wait:
                    await connection.exec_driver_sql(f"PRAGMA busy_timeout={int(usual)}")
                    await connection.commit()
    except (TimeoutError, SQLAlchemyError, OSError) as exc:
        raise StorageError(describe_error(exc, url)) from None


def describe_error(exc: BaseException, url: str) -> str:
    """One line for an operator: what is wrong with the database and what to do."""
    return str(classify(exc, url) or DatabaseFault("unavailable", f"The database {safe_url(url)} could not be used: {_detail(exc)}"))


def _detail(exc: BaseException) -> str:
    """The driver's first line, a `password=` in it shown as `password=***`."""
    original = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    if not str(original).strip():
        return type(original).__name__
    return hide_query_secrets(str(original).splitlines()[0])


def classify(exc: BaseException, url: str, *, disconnect: bool = False) -> DatabaseFault | None:
    """Return the fault a driver's error means (unavailable, full, read-only, busy), or None for any other error.

    The one place that reads SQLite's, asyncpg's and SQLAlchemy's errors: the engine raises what this
    returns in place of the driver's error (`_raise_faults`), and start-up checks print its line. A
    broken constraint, a bug in a statement or a lost conditional update is none of these: None.
    """
    where = safe_url(url)
    original = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    if isinstance(exc, IntegrityError) or "integrity" in type(original).__name__.lower():
        return None
    detail = _detail(exc)
    lowered = detail.lower()
    name = type(original).__name__.lower()
    if isinstance(original, TimeoutError) or "timeout" in name or "timed out" in lowered:
        return DatabaseFault(
            "unavailable",
            f"The database {where} did not answer in time ({detail}). Check the server, or raise QUIZBOT_DATABASE_TIMEOUT_SECONDS.",
        )
    if "file is not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
        return DatabaseFault(
            "unavailable",
            f"The database {where} is not a valid SQLite database (corrupt or another kind of file). "
            "Move it away or point QUIZBOT_DATABASE_URL elsewhere.",
        )
    if "locked" in lowered or "busy" in lowered:
        return DatabaseFault(
            "busy", f"The database {where} is locked by another program. Stop it, or use PostgreSQL to run several bot processes."
        )
    if "readonly" in lowered or "read-only" in lowered or "read only" in lowered:
        return DatabaseFault("read-only", f"The database {where} is read-only ({detail}): the bot must be able to write it.")
    if "disk is full" in lowered or "no space left" in lowered or "diskfull" in name or "could not extend file" in lowered:
        return DatabaseFault("full", f"The disk of the database {where} is full ({detail}): free some space.")
    if "unable to open" in lowered or "permission" in lowered:
        return DatabaseFault("unavailable", f"The database {where} cannot be opened for writing ({detail}).")
    if "disk i/o error" in lowered:
        return DatabaseFault("unavailable", f"The database {where} cannot be written or read ({detail}): check its disk.")
    if "too many clients" in lowered or "starting up" in lowered or "shutting down" in lowered:
        return DatabaseFault("unavailable", f"The database {where} does not take connections now ({detail}).")
    if disconnect or isinstance(original, OSError) or "connection" in name or "cannotconnect" in name:
        return DatabaseFault("unavailable", f"The database {where} cannot be reached ({detail}).")
    return None


def _raise_faults(engine: AsyncEngine, url: str) -> None:
    """Raise a `DatabaseFault` in place of every driver error `classify` recognises, from connecting to commit."""

    def on_error(context: ExceptionContext) -> BaseException | None:
        return classify(context.original_exception, url, disconnect=context.is_disconnect)

    def on_connect(dialect: Any, _record: Any, cargs: Any, cparams: Any) -> Any:
        try:
            return dialect.connect(*cargs, **cparams)
        except OSError as exc:  # asyncpg's refused or timed-out connect: not a DBAPI error, so on_error never sees it
            raise classify(exc, url) or exc from exc
        except (TypeError, ValueError) as exc:  # a URL parameter of the wrong kind (`?ssl=maybe`): the URL's fault
            raise StorageError(f"The database URL {safe_url(url)} cannot be used ({_detail(exc)}): write {URL_FORMS}") from None

    event.listen(engine.sync_engine, "handle_error", on_error)
    event.listen(engine.sync_engine, "do_connect", on_connect)
