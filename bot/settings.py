"""Settings: from the environment, or from quizbot.toml in the working directory; the environment wins."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

TOML_FILE = "quizbot.toml"


def _split(value: Any) -> Any:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class Settings(BaseSettings):
    """Everything an operator can set. Secrets are SecretStr: they never print."""

    model_config = SettingsConfigDict(
        env_prefix="QUIZBOT_", toml_file=TOML_FILE, extra="ignore", populate_by_name=True
    )

    database_url: str = Field(
        default="sqlite+aiosqlite:///data/quizbot.db",
        description="sqlite+aiosqlite:///path or postgresql+asyncpg://user@host/db",
    )
    packs: Annotated[list[Path], NoDecode] = Field(
        default_factory=lambda: [Path("content/packs")], description="Folders of packs loaded at start, comma-separated."
    )
    admins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="Extra admins: discord:<user id> or slack:<user id>, comma-separated."
    )
    log_level: str = "INFO"
    session_ttl_hours: float = Field(default=24.0, gt=0, description="A quiz left untouched this long expires.")
    database_timeout_seconds: float = Field(
        default=10.0, gt=0, le=600, description="PostgreSQL: the longest wait to connect, and for one statement."
    )
    scheduler: Literal["on", "off"] = Field(
        default="on", description="off: this process only serves interactions; daily posts and reminders run elsewhere."
    )

    discord_token: SecretStr | None = Field(default=None, validation_alias=AliasChoices("DISCORD_TOKEN", "discord_token"))
    discord_guild_ids: Annotated[list[int], NoDecode] = Field(
        default_factory=list, validation_alias=AliasChoices("DISCORD_GUILD_IDS", "discord_guild_ids")
    )
    discord_api_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("DISCORD_API_URL", "discord_api_url"),
        description="Base URL of the Discord HTTP API (tests).",
    )
    slack_bot_token: SecretStr | None = Field(default=None, validation_alias=AliasChoices("SLACK_BOT_TOKEN", "slack_bot_token"))
    slack_signing_secret: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("SLACK_SIGNING_SECRET", "slack_signing_secret")
    )
    slack_app_token: SecretStr | None = Field(default=None, validation_alias=AliasChoices("SLACK_APP_TOKEN", "slack_app_token"))
    slack_api_url: str | None = Field(default=None, validation_alias=AliasChoices("SLACK_API_URL", "slack_api_url"))
    slack_port: int = Field(default=3000, validation_alias=AliasChoices("SLACK_PORT", "slack_port"))

    @field_validator("packs", "admins", "discord_guild_ids", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        return _split(value)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls))

    @property
    def discord_enabled(self) -> bool:
        return self.discord_token is not None

    @property
    def slack_enabled(self) -> bool:
        return self.slack_bot_token is not None and (
            self.slack_signing_secret is not None or self.slack_app_token is not None
        )


def sandbox_overrides() -> dict[str, Any]:
    """The [sandbox] table of quizbot.toml, less what the environment sets (it wins)."""
    path = Path(TOML_FILE)
    if not path.is_file():
        return {}
    table = tomllib.loads(path.read_text(encoding="utf-8")).get("sandbox", {})
    return {k: v for k, v in table.items() if f"QUIZBOT_SANDBOX_{k.upper()}" not in os.environ}
