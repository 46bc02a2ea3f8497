"""Pending converted packs get their own table, whose rows expire (they were kept in `settings`).

Revision ID: 0008_pending_packs
Revises: 0006_unfinished_work
Create Date: 2026-12-04

The rows in `settings` under `convert:*` and `convert-index` were previews of at most an hour;
they are deleted, not moved: an admin whose preview was pending loads the file again.
"""

import sqlalchemy as sa
from alembic import op

from bot.storage.tables import UTCDateTime

revision = "0008_pending_packs"
down_revision = "0007_answer_path"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pending_packs",
        sa.Column("key", sa.String(40), primary_key=True),
        sa.Column("owner", sa.String(130), nullable=False),
        sa.Column("filename", sa.String(255), nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.Column("force", sa.Boolean, nullable=False),
        sa.Column("expires", UTCDateTime, nullable=False),
    )
    op.create_index("ix_pending_packs_expires", "pending_packs", ["expires"])
    settings = sa.table("settings", sa.column("key", sa.String))
    op.execute(settings.delete().where(sa.or_(settings.c.key.like("convert:%"), settings.c.key == "convert-index")))


def downgrade() -> None:
    op.drop_table("pending_packs")
