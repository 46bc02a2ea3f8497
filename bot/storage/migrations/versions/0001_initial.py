"""Initial schema: packs, questions, settings per scope, sessions, attempts, reviews, settings.

Revision ID: 0001
Revises:
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

from bot.storage.tables import UTCDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "packs",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "questions",
        sa.Column("pack_id", sa.String(40), primary_key=True),
        sa.Column("question_id", sa.String(64), primary_key=True),
        sa.Column("type", sa.String(10), nullable=False),
        sa.Column("topic", sa.String(64)),
        sa.Column("difficulty", sa.String(10), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
    )
    op.create_table(
        "pack_settings",
        sa.Column("scope", sa.String(100), primary_key=True),
        sa.Column("pack_id", sa.String(40), primary_key=True),
        sa.Column("enabled", sa.Boolean, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("platform", sa.String(20), nullable=False),
        sa.Column("scope", sa.String(100), nullable=False),
        sa.Column("owner_kind", sa.String(10), nullable=False),
        sa.Column("owner_id", sa.String(100), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
    )
    op.create_index(
        "ix_sessions_one_active",
        "sessions",
        ["platform", "scope", "owner_kind", "owner_id"],
        unique=True,
        sqlite_where=sa.text("status = 'active'"),
        postgresql_where=sa.text("status = 'active'"),
    )
    op.create_table(
        "attempts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("platform", sa.String(20), nullable=False),
        sa.Column("scope", sa.String(100), nullable=False),
        sa.Column("user_id", sa.String(100), nullable=False),
        sa.Column("pack_id", sa.String(40), nullable=False),
        sa.Column("question_id", sa.String(64), nullable=False),
        sa.Column("topic", sa.String(64)),
        sa.Column("answer", sa.Text, nullable=False),
        sa.Column("correct", sa.Boolean, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("at", UTCDateTime, nullable=False),
        sa.Column("session_id", sa.String(32)),
    )
    op.create_index("ix_attempts_user_question", "attempts", ["platform", "user_id", "pack_id", "question_id"])
    op.create_index("ix_attempts_user_time", "attempts", ["platform", "user_id", "at"])
    op.create_table(
        "reviews",
        sa.Column("platform", sa.String(20), primary_key=True),
        sa.Column("user_id", sa.String(100), primary_key=True),
        sa.Column("pack_id", sa.String(40), primary_key=True),
        sa.Column("question_id", sa.String(64), primary_key=True),
        sa.Column("card", sa.Text, nullable=False),
        sa.Column("due", UTCDateTime, nullable=False),
        sa.Column("correct", sa.Boolean, nullable=False),
        sa.Column("answers", sa.Integer, nullable=False),
    )
    op.create_table(
        "settings",
        sa.Column("key", sa.String(100), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )


def downgrade() -> None:
    for table in ("settings", "reviews", "attempts", "sessions", "pack_settings", "questions", "packs"):
        op.drop_table(table)
