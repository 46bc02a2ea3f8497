"""Settings sources and the secret filter on logs."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.logs import RedactSecrets
from bot.settings import Settings


def test_environment_wins_over_the_toml_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "quizbot.toml").write_text(
        'database_url = "sqlite+aiosqlite:///from-toml.db"\nadmins = "discord:1"\nlog_level = "DEBUG"\n'
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", "sqlite+aiosqlite:///from-env.db")
    monkeypatch.setenv("QUIZBOT_PACKS", "a, b")
    monkeypatch.setenv("DISCORD_GUILD_IDS", "1,2")
    monkeypatch.setenv("DISCORD_TOKEN", "abc.def.ghi")
    settings = Settings()
    assert settings.database_url == "sqlite+aiosqlite:///from-env.db"
    assert settings.log_level == "DEBUG"
    assert settings.admins == ["discord:1"]
    assert settings.packs == [Path("a"), Path("b")]
    assert settings.discord_guild_ids == [1, 2]
    assert settings.discord_enabled and not settings.slack_enabled
    assert "abc.def.ghi" not in repr(settings)


def test_log_records_never_carry_secrets(caplog: pytest.LogCaptureFixture) -> None:
    secret = "xoxb-123456789-abcdefghijklmnop"
    record = logging.LogRecord("t", logging.ERROR, __file__, 1, "token %s and url %s", (secret, "postgresql://u:pw123456@h/db"), None)
    RedactSecrets(["my-signing-secret"]).filter(record)
    text = record.getMessage()
    assert secret not in text and "pw123456" not in text and "[redacted]" in text
    other = logging.LogRecord("t", logging.ERROR, __file__, 1, "sig=my-signing-secret", None, None)
    RedactSecrets(["my-signing-secret"]).filter(other)
    assert "my-signing-secret" not in other.getMessage()
