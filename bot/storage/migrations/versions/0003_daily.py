"""Daily practice: schedules, posts (the per-day claim), answers, learners, days, cards, reminders.

Revision ID: 0003
Revises: 0001
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

from bot.storage.tables import UTCDateTime

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "daily_schedules",
        sa.Column("platform", sa.String(20), primary_key=True),
        sa.Column("channel_id", sa.String(100), primary_key=True),
        sa.Column("scope", sa.String(100), nullable=False),
        sa.Column("at", sa.String(5), nullable=False),
        sa.Column("zone", sa.String(64), nullable=False),
        sa.Column("packs", sa.Text, nullable=False),
        sa.Column("topic", sa.String(64)),
        sa.Column("difficulty", sa.String(10)),
        sa.Column("reveal_after_hours", sa.Float),
        sa.Column("set_by", sa.String(100), nullable=False),
        sa.Column("paused", sa.Boolean, nullable=False),
        sa.Column("pause_reason", sa.Text),
        sa.Column("last_day", sa.Date),
        sa.Column("cycle", sa.Integer, nullable=False),
        sa.Column("next_at", UTCDateTime),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_daily_schedules_next", "daily_schedules", ["next_at"])
    op.create_index("ix_daily_schedules_scope", "daily_schedules", ["platform", "scope"])
    op.create_table(
        "daily_posts",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("platform", sa.String(20), nullable=False),
        sa.Column("scope", sa.String(100), nullable=False),
        sa.Column("channel_id", sa.String(100), nullable=False),
        sa.Column("day", sa.Date, nullable=False),
        sa.Column("pack_id", sa.String(40), nullable=False),
        sa.Column("question_id", sa.String(64), nullable=False),
        sa.Column("cycle", sa.Integer, nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("message_ref", sa.String(200)),
        sa.Column("posted_at", UTCDateTime, nullable=False),
        sa.Column("reveal_at", UTCDateTime, nullable=False),
        sa.Column("revealed_at", UTCDateTime),
        sa.Column("answered", sa.Integer, nullable=False),
        sa.Column("right", sa.Integer, nullable=False),
        sa.Column("tally_dirty", sa.Boolean, nullable=False),
        sa.Column("tally_edited_at", UTCDateTime),
        sa.UniqueConstraint("platform", "channel_id", "day", name="uq_daily_posts_channel_day"),
    )
    op.create_index("ix_daily_posts_reveal", "daily_posts", ["revealed_at", "reveal_at"])
    op.create_index("ix_daily_posts_cycle", "daily_posts", ["platform", "channel_id", "cycle"])
    op.create_table(
        "daily_answers",
        sa.Column("post_id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.String(100), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("hinted", sa.Boolean, nullable=False),
        sa.Column("done", sa.Boolean, nullable=False),
        sa.Column("correct", sa.Boolean, nullable=False),
        sa.Column("first_at", UTCDateTime),
        sa.Column("done_at", UTCDateTime),
        sa.Column("selections", sa.Text, nullable=False),
    )
    op.create_table(
        "daily_learners",
        sa.Column("platform", sa.String(20), primary_key=True),
        sa.Column("user_id", sa.String(100), primary_key=True),
        sa.Column("zone", sa.String(64), nullable=False),
        sa.Column("review_cap", sa.Integer, nullable=False),
        sa.Column("new_cap", sa.Integer, nullable=False),
        sa.Column("packs", sa.Text, nullable=False),
        sa.Column("remind_at", sa.String(5)),
        sa.Column("remind_zone", sa.String(64)),
        sa.Column("remind_failures", sa.Integer, nullable=False),
        sa.Column("remind_stopped", sa.Boolean, nullable=False),
        sa.Column("remind_last_day", sa.Date),
        sa.Column("remind_next_at", UTCDateTime),
        sa.Column("streak_current", sa.Integer, nullable=False),
        sa.Column("streak_longest", sa.Integer, nullable=False),
        sa.Column("streak_freezes", sa.Integer, nullable=False),
        sa.Column("streak_last_day", sa.Date),
        sa.Column("streak_frozen_days", sa.Integer, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_daily_learners_remind", "daily_learners", ["remind_next_at"])
    op.create_table(
        "daily_days",
        sa.Column("platform", sa.String(20), primary_key=True),
        sa.Column("user_id", sa.String(100), primary_key=True),
        sa.Column("day", sa.Date, primary_key=True),
        sa.Column("reviews", sa.Integer, nullable=False),
        sa.Column("new", sa.Integer, nullable=False),
        sa.Column("channel", sa.Integer, nullable=False),
    )
    op.create_table(
        "daily_cards",
        sa.Column("platform", sa.String(20), primary_key=True),
        sa.Column("user_id", sa.String(100), primary_key=True),
        sa.Column("pack_id", sa.String(40), primary_key=True),
        sa.Column("question_id", sa.String(64), primary_key=True),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("suspended", sa.Boolean, nullable=False),
    )
    op.create_table(
        "daily_reminders",
        sa.Column("platform", sa.String(20), primary_key=True),
        sa.Column("user_id", sa.String(100), primary_key=True),
        sa.Column("day", sa.Date, primary_key=True),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("due", sa.Integer, nullable=False),
        sa.Column("claimed_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    for table in (
        "daily_reminders", "daily_cards", "daily_days", "daily_learners", "daily_answers", "daily_posts",
        "daily_schedules",
    ):
        op.drop_table(table)
