"""Bad settings, the bot's and the sandbox's: one `Bad settings:` line naming the variable, exit code 2, no traceback."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from bot.settings import Settings

SECRET = "xoxb-111111111-secretsecretsecret"


@pytest.fixture(autouse=True)
def _workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A working folder of its own (no quizbot.toml), a SQLite database in it, pytest's log handlers kept."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'q.db'}")
    monkeypatch.setenv("QUIZBOT_PACKS", str(tmp_path / "no-packs"))
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    captured = capsys.readouterr()
    shown = captured.out + captured.err
    assert code == 2, shown
    assert "Traceback" not in shown and SECRET not in shown
    assert len(shown.strip().splitlines()) == 1, shown
    assert shown.startswith("Bad settings: ")
    return shown


@pytest.mark.parametrize("value", ["1e999", "1e300", "inf", "-inf", "nan", "8761"])
def test_a_session_ttl_out_of_range_is_a_bad_setting(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    monkeypatch.setenv("QUIZBOT_SESSION_TTL_HOURS", value)
    monkeypatch.setenv("SLACK_BOT_TOKEN", SECRET)
    shown = _refused(capsys, "pack", "list")
    assert "QUIZBOT_SESSION_TTL_HOURS" in shown


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("QUIZBOT_DATABASE_TIMEOUT_SECONDS", "inf"),
        ("QUIZBOT_DATABASE_TIMEOUT_SECONDS", "nan"),
        ("QUIZBOT_SHUTDOWN_GRACE_S", "nan"),
        ("QUIZBOT_SHUTDOWN_GRACE_S", "1e999"),
        ("QUIZBOT_HEARTBEAT_S", "0"),
        ("QUIZBOT_HEARTBEAT_S", "inf"),
        ("SLACK_PORT", "99999"),
        ("SLACK_PORT", "0"),
        ("DISCORD_SHARD_COUNT", "1" + "0" * 30),
        ("QUIZBOT_METRICS_PORT", "70000"),
        ("DISCORD_GUILD_IDS", "1,x"),
    ],
)
def test_other_numbers_out_of_range_are_bad_settings(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    shown = _refused(capsys, "pack", "list")
    assert name in shown


def test_the_documented_defaults_and_the_bounds_themselves_are_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    defaults = Settings()
    assert defaults.session_ttl_hours == 24 and defaults.slack_port == 3000 and defaults.shutdown_grace_s == 20
    assert defaults.heartbeat_s == 10
    monkeypatch.setenv("QUIZBOT_SESSION_TTL_HOURS", "8760")
    monkeypatch.setenv("SLACK_PORT", "65535")
    assert Settings().session_ttl_hours == 8760


def test_every_bad_setting_is_named_on_the_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("QUIZBOT_SESSION_TTL_HOURS", "abc")
    monkeypatch.setenv("DISCORD_SHARD_COUNT", "x")
    shown = _refused(capsys, "pack", "list")
    assert "QUIZBOT_SESSION_TTL_HOURS" in shown and "DISCORD_SHARD_COUNT" in shown


def test_a_bad_setting_in_quizbot_toml_is_named_there(capsys: pytest.CaptureFixture[str]) -> None:
    Path("quizbot.toml").write_text("session_ttl_hours = 1e300\n", encoding="utf-8")
    shown = _refused(capsys, "pack", "list")
    assert "session_ttl_hours" in shown


def test_quizbot_toml_that_is_not_toml_is_a_bad_setting(capsys: pytest.CaptureFixture[str]) -> None:
    Path("quizbot.toml").write_text("admins = [\n", encoding="utf-8")
    shown = _refused(capsys, "pack", "list")
    assert "quizbot.toml" in shown


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("QUIZBOT_SANDBOX_WALL_S", "abc"),
        ("QUIZBOT_SANDBOX_WALL_S", "1e999"),
        ("QUIZBOT_SANDBOX_MEMORY_MB", "-1"),
        ("QUIZBOT_SANDBOX_WORKERS", "0"),
        ("QUIZBOT_SANDBOX_START_TIMEOUT_S", "inf"),
    ],
)
@pytest.mark.parametrize("argv", [("run",), ("discord",), ("sandbox", "run", "hi.py")])
def test_a_bad_sandbox_setting_stops_the_start(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str, value: str, argv: tuple[str, ...]
) -> None:
    Path("hi.py").write_text("print('hi')\n", encoding="utf-8")
    monkeypatch.setenv(name, value)
    monkeypatch.setenv("DISCORD_TOKEN", "MTIz.not-a-real-token")
    monkeypatch.setenv("DISCORD_API_URL", "http://127.0.0.1:1/api")  # never reached: refused before any platform
    shown = _refused(capsys, *argv)
    assert name in shown
    assert not Path("q.db").exists() or argv[0] == "sandbox"  # stopped before the database was opened


def test_a_bad_sandbox_table_in_quizbot_toml_stops_the_start(capsys: pytest.CaptureFixture[str]) -> None:
    Path("quizbot.toml").write_text("[sandbox]\nwall_s = 1e999\nworkerz = 2\n", encoding="utf-8")
    shown = _refused(capsys, "run")
    assert "[sandbox] wall_s" in shown and "[sandbox] workerz" in shown and "quizbot.toml" in shown


def test_commands_without_the_sandbox_still_run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("QUIZBOT_SANDBOX_WALL_S", "abc")
    assert main(["pack", "list"]) == 0
    assert "Bad settings" not in capsys.readouterr().err
