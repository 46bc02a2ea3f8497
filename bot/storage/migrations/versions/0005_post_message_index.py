"""Find a daily post from its platform message: a code block in its thread or a reply answers it.

Revision ID: 0005_post_message_index
Revises: 0004
Create Date: 2026-12-04
"""

from alembic import op

revision = "0005_post_message_index"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_daily_posts_message", "daily_posts", ["platform", "message_ref"])


def downgrade() -> None:
    op.drop_index("ix_daily_posts_message", table_name="daily_posts")
