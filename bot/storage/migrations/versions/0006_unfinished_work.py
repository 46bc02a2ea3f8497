"""Unfinished work: what a learner waits for, so work a stopped process never finished is not dropped.

Revision ID: 0006_unfinished_work
Revises: 0005_post_message_index
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

from bot.storage.tables import UTCDateTime

revision = "0006_unfinished_work"
down_revision = "0005_post_message_index"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "unfinished_work",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("platform", sa.String(20), nullable=False),
        sa.Column("user_id", sa.String(100), nullable=False),
        sa.Column("item", sa.String(100), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("title", sa.String(200)),
        sa.Column("process", sa.String(32), nullable=False),
        sa.Column("started_at", UTCDateTime, nullable=False),
        sa.Column("deadline", UTCDateTime, nullable=False),
    )
    op.create_index("ix_unfinished_work_item", "unfinished_work", ["platform", "user_id", "item"], unique=True)
    op.create_index("ix_unfinished_work_process", "unfinished_work", ["process"])


def downgrade() -> None:
    op.drop_table("unfinished_work")
