"""A PostgreSQL URL's query string: a password there is masked, a parameter asyncpg does not take is one line."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from bot.cli import main
from bot.core.errors import StorageError
from bot.logs import setup_logging
from bot.storage.database import create_engine, safe_url

SECRET = "S3cretPassw0rd"
NOWHERE = "postgresql+asyncpg://admin@127.0.0.1:1/db"  # port 1: refused at once


@pytest.fixture(autouse=True)
def _keep_logging() -> Iterator[None]:
    """The CLI replaces the root logger's handlers: give pytest's back afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def _cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], url: str, *argv: str) -> tuple[int, str]:
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", url)
    monkeypatch.setenv("QUIZBOT_DATABASE_TIMEOUT_SECONDS", "3")
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.parametrize(
    "url",
    [
        f"{NOWHERE}?password={SECRET}",
        f"{NOWHERE}?ssl=prefer&PASSWORD={SECRET}",
        f"postgresql+asyncpg://admin:{SECRET}@127.0.0.1:1/db?password={SECRET}",
    ],
)
def test_safe_url_masks_a_password_in_the_query(url: str) -> None:
    shown = safe_url(url)
    assert SECRET not in shown
    assert "password=***" in shown.lower()
    assert shown.startswith("postgresql+asyncpg://admin") and "127.0.0.1:1/db" in shown


def test_safe_url_keeps_the_other_parameters() -> None:
    assert safe_url(f"{NOWHERE}?ssl=require&password={SECRET}") == f"{NOWHERE}?password=***&ssl=require"  # sorted by SQLAlchemy


def test_the_cli_message_masks_a_password_in_the_query(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, shown = _cli(monkeypatch, capsys, f"{NOWHERE}?password={SECRET}", "pack", "list")
    assert code == 1
    assert SECRET not in shown
    assert shown.startswith("Database error: The database") and "password=***" in shown
    assert "cannot be reached" in shown and len(shown.strip().splitlines()) == 1


@pytest.mark.parametrize("key", ["password", "Password", "sslpassword"])
def test_a_log_record_masks_a_password_in_a_url_query(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], key: str
) -> None:
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", "sqlite+aiosqlite:///elsewhere.db")  # not the URL logged below
    setup_logging("INFO")
    logging.getLogger("quizbot.test").warning(
        "could not reach %s", f"postgresql+asyncpg://admin@db.example:5432/quiz?{key}={SECRET}&ssl=require"
    )
    shown = capsys.readouterr().err
    assert SECRET not in shown
    assert f"?{key}=***&ssl=require" in shown


@pytest.mark.parametrize(
    ("query", "named"),
    [("sslmode=require", "sslmode"), ("foo=bar", "foo"), ("ssl=require&application_name=quizbot", "application_name")],
)
@pytest.mark.parametrize("argv", [("pack", "list"), ("db", "upgrade"), ("run",)])
def test_a_parameter_asyncpg_does_not_take_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], query: str, named: str, argv: tuple[str, ...]
) -> None:
    url = f"postgresql+asyncpg://admin:{SECRET}@127.0.0.1:1/db?{query}"
    code, shown = _cli(monkeypatch, capsys, url, *argv)
    assert code == 1
    assert "Traceback" not in shown and SECRET not in shown
    assert len(shown.strip().splitlines()) == 1, shown
    assert shown.startswith("Database error:") and f"`{named}`" in shown
    if named == "sslmode":
        assert "ssl=require" in shown


def test_a_password_in_the_query_is_masked_when_another_parameter_is_refused() -> None:
    with pytest.raises(StorageError) as raised:
        create_engine(f"{NOWHERE}?sslmode=require&password={SECRET}")
    assert SECRET not in str(raised.value) and "password=***" in str(raised.value)


@pytest.mark.parametrize("query", ["ssl=require", "ssl=disable&target_session_attrs=read-write", "passfile=/run/pgpass"])
def test_the_parameters_asyncpg_takes_are_accepted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], query: str
) -> None:
    create_engine(f"{NOWHERE}?{query}")  # no StorageError
    code, shown = _cli(monkeypatch, capsys, f"{NOWHERE}?{query}", "pack", "list")
    assert code == 1 and "cannot be reached" in shown  # past the check, to the (refused) connection
