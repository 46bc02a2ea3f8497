"""Settings: from the environment, or from quizbot.toml in the working directory; the environment wins."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

TOML_FILE = "quizbot.toml"
MAX_SESSION_TTL_HOURS = 24 * 365  # a quiz may stay open a year, no longer
MAX_SHARDS = 65536


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
    # Every number has both bounds and no inf or nan: each becomes a timedelta, a sleep or a port, where
    # 1e300 hours or an infinite grace is an OverflowError or a wait without end, not a setting.
    session_ttl_hours: float = Field(
        default=24.0, gt=0, le=MAX_SESSION_TTL_HOURS, allow_inf_nan=False, description="A quiz left untouched this long expires."
    )
    database_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        le=600,
        allow_inf_nan=False,
        description="PostgreSQL: the longest wait to connect, and for one statement.",
    )
    uvloop: bool = Field(
        default=True, description="Run on uvloop's event loop where it is installed; off: asyncio's own loop."
    )
    scheduler: Literal["on", "off"] = Field(
        default="on", description="off: this process only serves interactions; daily posts and reminders run elsewhere."
    )
    sandbox_urls: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Sandbox services (quizbot sandbox serve), comma-separated; empty: the in-process pool.",
    )
    sandbox_token: SecretStr | None = Field(default=None, description="The bearer token the sandbox services expect.")
    sandbox_fallback: Literal["none", "local"] = Field(
        default="none", description="local: run a job on an in-process pool when no service can take it."
    )
    metrics_port: int | None = Field(
        default=None, ge=1, le=65535, description="Serve /metrics, /healthz and /readyz on this port."
    )
    metrics_host: str = Field(default="0.0.0.0", description="Address of the metrics server.")  # noqa: S104
    log_format: Literal["text", "json"] = Field(default="text", description="json: one JSON object per log line.")
    shutdown_grace_s: float = Field(
        default=20.0, ge=0, le=600, allow_inf_nan=False, description="On SIGTERM/SIGINT, how long work in flight may finish."
    )
    heartbeat_s: float = Field(
        default=10.0,
        ge=0.5,
        le=600,
        allow_inf_nan=False,
        description="PostgreSQL: how often a process records that it is alive; three beats missed, another tells its learners.",
    )
    discord_shard_count: int | None = Field(
        default=None, ge=1, le=MAX_SHARDS, validation_alias=AliasChoices("DISCORD_SHARD_COUNT", "discord_shard_count")
    )
    discord_shards: Annotated[list[int], NoDecode] = Field(
        default_factory=list,
        validation_alias=AliasChoices("DISCORD_SHARDS", "discord_shards"),
        description="Shard ids this process runs, e.g. 0-3 or 0,2; needs DISCORD_SHARD_COUNT.",
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
    slack_port: int = Field(default=3000, ge=1, le=65535, validation_alias=AliasChoices("SLACK_PORT", "slack_port"))

    @field_validator("sandbox_urls", mode="before")
    @classmethod
    def _urls(cls, value: Any) -> Any:
        return _split(value)

    @field_validator("discord_shards", mode="before")
    @classmethod
    def _shard_ids(cls, value: Any) -> Any:
        return shard_ids(value) if isinstance(value, str) else value

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

    @field_validator("discord_shards", mode="after")
    @classmethod
    def _shards_in_range(cls, value: list[int], info: ValidationInfo) -> list[int]:
        # A field validator: its error shows this field only, never the other (secret) settings.
        count = info.data.get("discord_shard_count")
        if value and count is None:
            raise ValueError("DISCORD_SHARDS needs DISCORD_SHARD_COUNT")
        if any(shard < 0 or shard >= (count or 0) for shard in value):
            raise ValueError(f"DISCORD_SHARDS must be below DISCORD_SHARD_COUNT ({count})")
        return value

    @property
    def discord_enabled(self) -> bool:
        return self.discord_token is not None

    @property
    def slack_enabled(self) -> bool:
        return self.slack_bot_token is not None and (
            self.slack_signing_secret is not None or self.slack_app_token is not None
        )


def shard_ids(text: str) -> list[int]:
    """Return the shard ids of ``0-3``, ``0,2`` or ``0-1,4``; raise ValueError on anything else."""
    ids: list[int] = []
    for part in _split(text):
        low, dash, high = part.partition("-")
        if not low.strip().isdigit() or (dash and not high.strip().isdigit()):
            raise ValueError(f"not a shard id or range: {part!r}")
        first, last = int(low), int(high) if dash else int(low)
        if last < first or last - first > 4096:
            raise ValueError(f"not a shard range: {part!r}")
        ids.extend(range(first, last + 1))
    return sorted(set(ids))


class SettingsError(ValueError):
    """Settings that cannot be used: one line naming each bad one and what is wrong, never a value."""


def load_settings() -> Settings:
    """Read the settings; raise SettingsError naming each bad one (its variable, or its key in quizbot.toml)."""
    try:
        return Settings()
    except ValidationError as exc:
        raise SettingsError(describe_invalid(exc, _setting_name)) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{TOML_FILE} cannot be read ({exc})") from None


def describe_invalid(exc: ValidationError, name: Callable[[str], str]) -> str:
    """`NAME: what is wrong; NAME: ...` for each error of `exc`, `name` turning a field into what the operator set.

    The sandbox's one line (its package stands alone, so the rule lives there): never the input.
    """
    from sandbox.config import describe_invalid as one_line

    return one_line(exc, name, unknown="not a setting here")


def _setting_name(key: str) -> str:
    """A Settings field (or alias) as the operator set it: its environment variable, else its key in quizbot.toml."""
    field = next((n for n, f in Settings.model_fields.items() if key == n or key in _aliases(f.validation_alias)), key)
    aliases = _aliases(Settings.model_fields[field].validation_alias) if field in Settings.model_fields else []
    variable = aliases[0].upper() if aliases else f"QUIZBOT_{field.upper()}"
    if variable in {name.upper() for name in os.environ} or not Path(TOML_FILE).is_file():
        return variable
    return f"{field} in {TOML_FILE}"


def _aliases(alias: object) -> list[str]:
    if isinstance(alias, AliasChoices):
        return [str(choice) for choice in alias.choices]
    return [alias] if isinstance(alias, str) else []


def sandbox_overrides() -> dict[str, Any]:
    """The [sandbox] table of quizbot.toml, less what the environment sets (it wins); SettingsError when unreadable."""
    path = Path(TOML_FILE)
    if not path.is_file():
        return {}
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("sandbox", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{TOML_FILE} cannot be read ({exc})") from None
    if not isinstance(table, dict):
        raise SettingsError(f"sandbox in {TOML_FILE}: must be a table ([sandbox])")
    return {k: v for k, v in table.items() if f"QUIZBOT_SANDBOX_{k.upper()}" not in os.environ}
