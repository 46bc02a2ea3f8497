"""The schema, as SQLAlchemy Core tables. Migrations in `migrations/` must match it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    text,
)
from sqlalchemy.types import TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """Store naive UTC; hand back aware UTC datetimes on every database."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


metadata = MetaData()

packs = Table(
    "packs",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("title", String(200), nullable=False),
    Column("data", Text, nullable=False),  # the validated pack as JSON
    Column("updated_at", UTCDateTime, nullable=False),
    # Who may change or remove it: `platform:scope` of the server or workspace whose admin loaded it
    # first; NULL: the operator (`quizbot pack import`, the packs loaded at start; migration 0012).
    Column("owner", String(130)),
)

questions = Table(
    "questions",
    metadata,
    Column("pack_id", String(40), primary_key=True),
    Column("question_id", String(64), primary_key=True),
    Column("type", String(10), nullable=False),
    Column("topic", String(64)),
    Column("difficulty", String(10), nullable=False),
    Column("digest", String(64), nullable=False),
)

pack_settings = Table(
    "pack_settings",
    metadata,
    Column("scope", String(100), primary_key=True),
    Column("pack_id", String(40), primary_key=True),
    Column("enabled", Boolean, nullable=False),
)

sessions = Table(
    "sessions",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("platform", String(20), nullable=False),
    Column("scope", String(100), nullable=False),
    Column("owner_kind", String(10), nullable=False),
    Column("owner_id", String(100), nullable=False),
    Column("status", String(10), nullable=False),
    Column("position", Integer, nullable=False),
    Column("data", Text, nullable=False),  # JSON: items, filters, anchor, who started it (see codec.py)
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("version", Integer, nullable=False),
    Index(
        "ix_sessions_one_active",
        "platform",
        "scope",
        "owner_kind",
        "owner_id",
        unique=True,
        sqlite_where=text("status = 'active'"),
        postgresql_where=text("status = 'active'"),
    ),
)

attempts = Table(
    "attempts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("platform", String(20), nullable=False),
    Column("scope", String(100), nullable=False),
    Column("user_id", String(100), nullable=False),
    Column("pack_id", String(40), nullable=False),
    Column("question_id", String(64), nullable=False),
    Column("topic", String(64)),
    Column("answer", Text, nullable=False),
    Column("correct", Boolean, nullable=False),
    Column("points", Integer, nullable=False),
    Column("at", UTCDateTime, nullable=False),
    Column("session_id", String(32)),
    # The action that made the attempt (platform interaction id, or a hash of a Slack click), unique:
    # an action delivered twice is recorded once. NULL for attempts made before migration 0002.
    Column("key", String(80)),
    # How it was answered: quiz, daily (the channel's daily post), race or review (the daily review).
    Column("mode", String(8), nullable=False, server_default="quiz"),
    # What the grade said, a line each (a code answer's failing tests' sentences): the report counts them.
    Column("detail", Text),
    Index("ix_attempts_key", "key", unique=True),
    Index("ix_attempts_user_question", "platform", "user_id", "pack_id", "question_id"),
    Index("ix_attempts_user_time", "platform", "user_id", "at"),
    # The organiser's report reads a pack's attempts from these alone (migration 0010).
    Index("ix_attempts_pack_learner", "pack_id", "platform", "user_id", "question_id", "id", "correct", "at"),
    Index("ix_attempts_pack_session", "pack_id", "session_id", "id", "at", "question_id"),
)

# Each learner's first attempt at each item of a pack in each scope: written by a trigger on
# `attempts` in the attempt's transaction (migration 0011), read by the report.
first_attempts = Table(
    "first_attempts",
    metadata,
    Column("pack_id", String(40), primary_key=True),
    Column("platform", String(20), primary_key=True),
    Column("user_id", String(100), primary_key=True),
    Column("question_id", String(64), primary_key=True),
    Column("scope", String(100), primary_key=True),
    Column("attempt_id", Integer, nullable=False),
    Column("correct", Boolean, nullable=False),
    Column("answer", Text, nullable=False),
    Column("detail", Text),
    Column("secs", Integer),  # from the previous answer at the pack in its quiz, or the quiz's start; NULL outside one
    Column("tries", Integer, nullable=False),  # attempts up to the first right one (in the row's scope), or so far
    Column("solved", Boolean, nullable=False),  # one of them was right
    # The same over every scope, on the row of the first attempt in any (NULL on the others).
    Column("tries_any", Integer),
    Column("solved_any", Boolean),
    sqlite_with_rowid=False,
)

reviews = Table(
    "reviews",
    metadata,
    Column("platform", String(20), primary_key=True),
    Column("user_id", String(100), primary_key=True),
    Column("pack_id", String(40), primary_key=True),
    Column("question_id", String(64), primary_key=True),
    Column("card", Text, nullable=False),
    Column("due", UTCDateTime, nullable=False),
    Column("correct", Boolean, nullable=False),  # the last graded answer was right
    Column("answers", Integer, nullable=False),  # graded answers so far (the last attempt at each showing)
)

settings = Table(
    "settings",
    metadata,
    Column("key", String(100), primary_key=True),
    Column("value", Text, nullable=False),
)

# One row per bot process on PostgreSQL, rewritten every QUIZBOT_HEARTBEAT_S (`WorkStore.beat`: a
# process silent for three beats is taken for dead), and the readiness check's, rewritten by /readyz.
heartbeats = Table(
    "heartbeats",
    metadata,
    Column("process", String(64), primary_key=True),
    Column("at", UTCDateTime, nullable=False),
)
