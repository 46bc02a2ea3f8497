"""Find a daily post from its platform message; count each delivery of a member's daily answer once.

A code block in the post's thread or a reply answers it, so posts are looked up by message. A
member's answer keeps the id of the delivery last counted (`last_key`), so the same delivery
arriving again (a retry that reaches another process) changes nothing.

Revision ID: 0005_post_message_index
Revises: 0004
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_post_message_index"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_daily_posts_message", "daily_posts", ["platform", "message_ref"])
    with op.batch_alter_table("daily_answers") as batch:
        batch.add_column(sa.Column("last_key", sa.String(200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("daily_answers") as batch:
        batch.drop_column("last_key")
    op.drop_index("ix_daily_posts_message", table_name="daily_posts")
