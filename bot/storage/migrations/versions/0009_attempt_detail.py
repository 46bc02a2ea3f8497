"""Attempts keep what the grade said, a line each (a code answer's failing tests' sentences), for reports.

Revision ID: 0009_attempt_detail
Revises: 0008_pending_packs
Create Date: 2026-12-04

Attempts stored before have no detail: the report counts their failing sentences as unknown.
"""

import sqlalchemy as sa
from alembic import op

revision = "0009_attempt_detail"
down_revision = "0008_pending_packs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("attempts") as batch:
        batch.add_column(sa.Column("detail", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("attempts") as batch:
        batch.drop_column("detail")
