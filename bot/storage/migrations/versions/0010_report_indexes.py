"""Indexes for the organiser's report: a pack's attempts by learner and item, and by quiz.

Revision ID: 0010_report_indexes
Revises: 0009_attempt_detail
Create Date: 2026-12-04

The item analysis reads every attempt at a pack twice: in learner, item and attempt order (each
learner's first attempt, attempts to the first right one, class progress) and in quiz order (when
each item was shown). Both indexes hold every column those passes read, so neither pass touches the
table itself; without them a report over a million attempts sorted them several times.
"""

from alembic import op

revision = "0010_report_indexes"
down_revision = "0009_attempt_detail"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_attempts_pack_learner", "attempts", ["pack_id", "platform", "user_id", "question_id", "id", "correct", "at"]
    )
    op.create_index("ix_attempts_pack_session", "attempts", ["pack_id", "session_id", "id", "at", "question_id"])


def downgrade() -> None:
    op.drop_index("ix_attempts_pack_session", table_name="attempts")
    op.drop_index("ix_attempts_pack_learner", table_name="attempts")
