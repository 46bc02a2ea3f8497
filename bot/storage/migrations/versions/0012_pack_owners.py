"""Packs get an owner: the server or workspace whose admin loaded a pack may change and remove it.

Revision ID: 0012_pack_owners
Revises: 0011_first_attempts
Create Date: 2026-12-07

`packs.owner` is `platform:scope` (`discord:<guild id>`, `slack:<team id>`) of the server or
workspace whose admin loaded the pack first from the chat, or NULL for the operator (`quizbot pack
import`, the packs loaded at start). Nothing recorded who loaded the packs stored before, so they
are the operator's: from the chat they can be enabled and disabled, not changed or removed.
"""

import sqlalchemy as sa
from alembic import op

revision = "0012_pack_owners"
down_revision = "0011_first_attempts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("packs") as batch:
        batch.add_column(sa.Column("owner", sa.String(130), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("packs") as batch:
        batch.drop_column("owner")
