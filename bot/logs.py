"""Logging set-up, called once by the CLI; a filter keeps secrets out of every record."""

from __future__ import annotations

import json
import logging
import os
import re
from datetime import UTC, datetime

_SECRET_NAMES = (
    "DISCORD_TOKEN", "SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "QUIZBOT_DATABASE_URL",
    "QUIZBOT_SANDBOX_TOKEN",
)  # fmt: skip
_TOKEN_SHAPES = re.compile(r"(xox[abprs]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+|[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,})")
_URL_PASSWORD = re.compile(r"(://[^:/@\s]+:)([^@\s]+)(@)")
# A password in a URL's query (`?password=...`, `&sslpassword=...`, any case), where asyncpg and libpq take one too.
_QUERY_SECRET = re.compile(r"([?&;][\w.%-]*(?:pass(?:word|wd)|secret|token)=)([^&;\s#'\"<>]+)", re.IGNORECASE)


def hide_query_secrets(text: str) -> str:
    """`text` with the value of every secret URL query parameter (`password=`, `sslpassword=`, ...) as `***`."""
    return _QUERY_SECRET.sub(r"\1***", text)


class RedactSecrets(logging.Filter):
    """Replace known secret values and token-shaped strings in log messages."""

    def __init__(self, secrets: list[str] | None = None) -> None:
        super().__init__()
        self._secrets = [s for s in (secrets or []) if s and len(s) >= 6]

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "[redacted]")
        text = _TOKEN_SHAPES.sub("[redacted]", text)
        return hide_query_secrets(_URL_PASSWORD.sub(r"\1[redacted]\3", text))

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = self.redact(message)
        if record.exc_info and record.exc_info[1] is not None:
            import traceback

            cleaned += "\n" + self.redact("".join(traceback.format_exception(*record.exc_info)))
            record.exc_info = None
            record.exc_text = None
        if cleaned != message or record.args:
            record.msg, record.args = cleaned, None
        return True


class JsonLines(logging.Formatter):
    """Format a record as one JSON object on one line: time, level, logger, message."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info and record.exc_info[1] is not None:  # the redaction filter folds these in first
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def setup_logging(level: str = "INFO", *, quiet: bool = False, log_format: str = "text") -> None:
    secrets = [os.environ.get(name, "") for name in _SECRET_NAMES]
    handler = logging.StreamHandler()
    if log_format == "json":
        handler.setFormatter(JsonLines())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactSecrets(secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING if quiet else getattr(logging, level.upper(), logging.INFO))
    for noisy in ("discord.gateway", "discord.client", "aiosqlite", "asyncio"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
