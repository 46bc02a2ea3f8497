"""Tables of the social side (races, their answers and drafts, leaderboard privacy).

They live on the shared MetaData of `tables.py`, so migrations and `compare_metadata` see them;
importing `bot.storage` registers them.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, Index, Integer, String, Table, Text, text

from .tables import UTCDateTime, metadata

races = Table(
    "races",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("platform", String(20), nullable=False),
    Column("scope", String(100), nullable=False),
    Column("channel_id", String(100), nullable=False),
    Column("status", String(10), nullable=False),
    Column("round", Integer, nullable=False),
    Column("deadline", UTCDateTime, nullable=False),  # when the current round's time is up
    Column("next_seq", Integer, nullable=False),  # arrival numbers handed out so far
    Column("data", Text, nullable=False),  # the race state as JSON, without its answers
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("version", Integer, nullable=False),
    Index(
        "ix_races_one_running",
        "platform",
        "scope",
        "channel_id",
        unique=True,
        sqlite_where=text("status = 'running'"),
        postgresql_where=text("status = 'running'"),
    ),
    Index("ix_races_status_deadline", "status", "deadline"),
)

race_answers = Table(
    "race_answers",
    metadata,
    Column("race_id", String(32), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("user_id", String(100), primary_key=True),  # the key makes "once per round" hold on every database
    Column("name", String(100), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("answer", Text, nullable=False),
    Column("correct", Boolean, nullable=False),
    Column("at", UTCDateTime, nullable=False),
    Index("ix_race_answers_seq", "race_id", "seq", unique=True),
)

race_drafts = Table(
    "race_drafts",
    metadata,
    Column("race_id", String(32), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("user_id", String(100), primary_key=True),
    Column("picks", Text, nullable=False),  # {"blank": option index} as JSON
)

leaderboard_privacy = Table(
    "leaderboard_privacy",
    metadata,
    Column("platform", String(20), primary_key=True),
    Column("user_id", String(100), primary_key=True),
    Column("hidden", Boolean, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
)
