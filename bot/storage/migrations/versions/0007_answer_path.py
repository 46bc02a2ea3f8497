"""The answer path: each attempt names its mode (quiz, daily, race, review), and a heartbeat row for /readyz.

Revision ID: 0007_answer_path
Revises: 0006_unfinished_work
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

from bot.storage.tables import UTCDateTime

revision = "0007_answer_path"
down_revision = "0006_unfinished_work"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("attempts") as batch:
        batch.add_column(sa.Column("mode", sa.String(8), nullable=False, server_default="quiz"))
    # Attempts stored before: a daily post's answer has a `daily:` key, a race's names its race.
    op.execute("UPDATE attempts SET mode = 'daily' WHERE key LIKE 'daily:%'")
    op.execute("UPDATE attempts SET mode = 'race' WHERE session_id IN (SELECT id FROM races)")
    op.execute(
        "UPDATE attempts SET mode = 'daily' WHERE session_id IN (SELECT id FROM sessions WHERE owner_kind = 'channel')"
        " AND mode = 'quiz'"
    )
    op.create_table(
        "heartbeats",
        sa.Column("process", sa.String(64), primary_key=True),
        sa.Column("at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("heartbeats")
    with op.batch_alter_table("attempts") as batch:
        batch.drop_column("mode")
