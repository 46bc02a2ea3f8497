"""The table of unfinished work, on the same MetaData as `tables.py`; migration 0005 creates it."""

from __future__ import annotations

from sqlalchemy import Column, Index, String, Table

from .tables import UTCDateTime, metadata

# One row per request a learner is waiting for (their code being graded or run): written when it is
# accepted, removed when it ends with a reply (with the graded attempt, in the same transaction).
# A row left behind by a stopped or killed process is what makes the learner's next request say
# "the bot restarted, please send it again".
unfinished_work = Table(
    "unfinished_work",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("platform", String(20), nullable=False),
    Column("user_id", String(100), nullable=False),
    Column("item", String(100), nullable=False),  # "<session id>:<position>" for grading, "run:<id>" for /quiz run
    Column("kind", String(10), nullable=False),  # "grade" or "run"
    Column("title", String(200)),  # the question's title (grading)
    Column("process", String(32), nullable=False),  # the start id of the process doing the work
    Column("started_at", UTCDateTime, nullable=False),
    Column("deadline", UTCDateTime, nullable=False),  # past it (or set to now at shutdown): abandoned
    Index("ix_unfinished_work_item", "platform", "user_id", "item", unique=True),
    Index("ix_unfinished_work_process", "process"),
)
