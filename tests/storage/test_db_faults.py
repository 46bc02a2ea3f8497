"""Database faults an operator can cause fail at start, in one line, instead of on every later action."""

from __future__ import annotations

import asyncio
import ctypes
import os
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.core import StorageError
from bot.core.packs import load_path
from bot.settings import Settings
from bot.storage import check_writable, open_repository
from tests.conftest import DEMO_PACK

ROOT = Path(__file__).parents[2]


def quizbot(*args: str, url: str, cwd: Path, drop_write_override: bool = False) -> subprocess.CompletedProcess[str]:
    """Run the real CLI; optionally without root's power to write read-only files (as an ordinary user runs it)."""
    env = {**os.environ, "QUIZBOT_DATABASE_URL": url, "QUIZBOT_PACKS": str(cwd / "no-packs"), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_drop_dac_override if drop_write_override else None,
    )


def _drop_dac_override() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2, 3):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER: gone from the exec'd bot
        libc.prctl(24, capability, 0, 0, 0)  # PR_CAPBSET_DROP


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, result.stdout + result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Database error: ")
    return lines[0]


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("not a url", "The database URL cannot be read (QUIZBOT_DATABASE_URL): write sqlite+aiosqlite:///"),
        ("postgresql+asyncpg://quiz:s3cret@127.0.0.1:port/db", "The database URL cannot be read"),
        ("sqlite:///quiz.db", "The database URL sqlite:///quiz.db does not name an async driver: write sqlite+aiosqlite:///"),
        ("postgresql://quiz:s3cret@db/quiz", "does not name an async driver: write postgresql+asyncpg://"),
        ("mysql+aiomysql://quiz@db/quiz", "Unsupported database URL mysql+aiomysql://quiz@db/quiz"),
    ],
    ids=["not a URL", "bad port", "sqlite without aiosqlite", "postgresql without asyncpg", "another database"],
)
async def test_a_bad_url_is_one_clear_error(url: str, fragment: str) -> None:
    with pytest.raises(StorageError) as caught:
        await open_repository(url)
    assert fragment in str(caught.value)
    assert "s3cret" not in str(caught.value)


async def test_a_folder_that_cannot_be_created(tmp_path: Path) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("a file where the folder should be")
    with pytest.raises(StorageError) as caught:
        await open_repository(f"sqlite+aiosqlite:///{blocker / 'sub' / 'quiz.db'}")
    assert str(caught.value) == (
        f"The folder {blocker / 'sub'} for the database sqlite+aiosqlite:///{blocker / 'sub' / 'quiz.db'} cannot be created (Not a directory)"
    )


async def _filled(path: Path) -> None:
    repo = await open_repository(f"sqlite+aiosqlite:///{path}")
    try:
        from bot.core import QuizService, SystemClock

        await QuizService(repository=repo, runner=None, clock=SystemClock()).import_pack(load_path(DEMO_PACK).pack)
    finally:
        await repo.close()


def _damage_table(path: Path, table: str) -> None:
    """Overwrite one table's root page with noise, leaving the header and the migrations' table whole."""
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
        alembic = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'alembic_version'").fetchone()[0]
    db.close()
    assert root not in (1, alembic)
    with path.open("r+b") as file:
        file.seek((root - 1) * page_size)
        file.write(bytes(range(256)) * (page_size // 256))


async def test_a_damaged_page_after_a_valid_header_fails_start(tmp_path: Path) -> None:
    path = tmp_path / "quiz.db"
    await _filled(path)
    _damage_table(path, "questions")
    with pytest.raises(StorageError) as caught:
        await open_repository(f"sqlite+aiosqlite:///{path}")
    assert str(caught.value).startswith(f"The database sqlite+aiosqlite:///{path} is damaged (")
    line = one_error_line(quizbot("db", "upgrade", url=f"sqlite+aiosqlite:///{path}", cwd=tmp_path))
    assert "is damaged" in line
    line = one_error_line(quizbot("pack", "list", url=f"sqlite+aiosqlite:///{path}", cwd=tmp_path))
    assert "is damaged" in line


async def test_a_read_only_database_file_fails_start(tmp_path: Path) -> None:
    path = tmp_path / "quiz.db"
    await _filled(path)
    url = f"sqlite+aiosqlite:///{path}"
    assert quizbot("db", "upgrade", url=url, cwd=tmp_path, drop_write_override=True).returncode == 0  # writable: fine
    path.chmod(0o444)
    line = one_error_line(quizbot("db", "upgrade", url=url, cwd=tmp_path, drop_write_override=True))
    assert line == f"Database error: The database {url} is read-only (attempt to write a readonly database): the bot must be able to write it."
    line = one_error_line(quizbot("run", url=url, cwd=tmp_path, drop_write_override=True))
    assert "is read-only" in line


async def test_a_database_another_program_holds_for_writing_fails_start(tmp_path: Path) -> None:
    path = tmp_path / "quiz.db"
    await _filled(path)  # in WAL mode, where readers pass a writer's lock: migrations alone would not notice
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StorageError, match="is locked by another program"):
            await open_repository(f"sqlite+aiosqlite:///{path}")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    repo = await open_repository(f"sqlite+aiosqlite:///{path}")
    await repo.close()


async def test_the_readiness_check_sees_a_lock_taken_after_start(tmp_path: Path) -> None:
    path = tmp_path / "quiz.db"
    url = f"sqlite+aiosqlite:///{path}"
    repo = await open_repository(url)
    try:
        await check_writable(repo.engine, url, wait=0.2)
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            with pytest.raises(StorageError, match="is locked by another program"):
                await check_writable(repo.engine, url, wait=0.2)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        await check_writable(repo.engine, url, wait=0.2)
        assert await repo.get_setting("quizbot.write-probe") is None  # the probe row was rolled back
    finally:
        await repo.close()


@pytest.fixture
async def silent_server() -> AsyncIterator[int]:
    """A TCP server that accepts connections and never says a word."""
    held: list[asyncio.StreamWriter] = []

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()


async def test_a_postgres_that_never_answers_times_out(silent_server: int) -> None:
    url = f"postgresql+asyncpg://quiz:s3cret@127.0.0.1:{silent_server}/quiz"
    with pytest.raises(StorageError) as caught:
        # The guard only catches a hang: asyncpg's own default would wait 60 s.
        await asyncio.wait_for(open_repository(url, db_timeout=0.5), 30)
    message = str(caught.value)
    assert message.startswith(f"The database postgresql+asyncpg://quiz:***@127.0.0.1:{silent_server}/quiz did not answer in time")
    assert "QUIZBOT_DATABASE_TIMEOUT_SECONDS" in message and "s3cret" not in message


def test_the_timeout_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIZBOT_DATABASE_TIMEOUT_SECONDS", "2.5")
    assert Settings().database_timeout_seconds == 2.5
    monkeypatch.delenv("QUIZBOT_DATABASE_TIMEOUT_SECONDS")
    assert Settings().database_timeout_seconds == 10.0


@pytest.fixture(params=["sqlite", "postgresql"])
async def any_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'q.db'}"
        return
    import uuid

    import asyncpg

    name = f"quizbot_test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect("postgresql://postgres@127.0.0.1:5432/test")
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def test_the_largest_values_a_pack_may_hold_are_stored(any_url: str) -> None:
    """The pack format's limits (version, topic length) are what both databases can store."""
    from bot.core import QuizService, SystemClock
    from bot.core.packs import load_bytes

    topic = "ü" * 64  # 64 characters, 128 bytes: VARCHAR(64) counts characters on PostgreSQL
    text = (
        f"pack: edge\ntitle: '{'T' * 120}'\nversion: 2147483647\nquestions:\n"
        f"  - id: '{'q' * 64}'\n    type: short\n    topic: {topic}\n    prompt: Say\n    accept: ['x']\n"
    )
    repo = await open_repository(any_url)
    try:
        service = QuizService(repository=repo, runner=None, clock=SystemClock())
        await service.import_pack(load_bytes("edge.yaml", text.encode()).pack)
        stored = await repo.get_pack("edge")
        assert stored is not None and stored.version == 2**31 - 1 and stored.questions[0].topic == topic
    finally:
        await repo.close()
