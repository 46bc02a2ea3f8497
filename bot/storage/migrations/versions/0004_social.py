"""Social: races, race answers and drafts, leaderboard privacy.

Revision ID: 0004
Revises: 0001
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

from bot.storage.tables import UTCDateTime

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "races",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("platform", sa.String(20), nullable=False),
        sa.Column("scope", sa.String(100), nullable=False),
        sa.Column("channel_id", sa.String(100), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("deadline", UTCDateTime, nullable=False),
        sa.Column("next_seq", sa.Integer, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
    )
    op.create_index(
        "ix_races_one_running",
        "races",
        ["platform", "scope", "channel_id"],
        unique=True,
        sqlite_where=sa.text("status = 'running'"),
        postgresql_where=sa.text("status = 'running'"),
    )
    op.create_index("ix_races_status_deadline", "races", ["status", "deadline"])
    op.create_table(
        "race_answers",
        sa.Column("race_id", sa.String(32), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.String(100), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
        sa.Column("correct", sa.Boolean, nullable=False),
        sa.Column("at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_race_answers_seq", "race_answers", ["race_id", "seq"], unique=True)
    op.create_table(
        "race_drafts",
        sa.Column("race_id", sa.String(32), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.String(100), primary_key=True),
        sa.Column("picks", sa.Text, nullable=False),
    )
    op.create_table(
        "leaderboard_privacy",
        sa.Column("platform", sa.String(20), primary_key=True),
        sa.Column("user_id", sa.String(100), primary_key=True),
        sa.Column("hidden", sa.Boolean, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    for table in ("leaderboard_privacy", "race_drafts", "race_answers", "races"):
        op.drop_table(table)
