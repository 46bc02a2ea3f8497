"""Tables of daily practice, on the same MetaData as `tables.py`; migration 0003 creates them."""

from __future__ import annotations

from sqlalchemy import Boolean, Column, Date, Float, Index, Integer, String, Table, Text, UniqueConstraint

from .tables import UTCDateTime, metadata

daily_schedules = Table(
    "daily_schedules",
    metadata,
    Column("platform", String(20), primary_key=True),
    Column("channel_id", String(100), primary_key=True),
    Column("scope", String(100), nullable=False),
    Column("at", String(5), nullable=False),  # HH:MM, wall clock in `zone`
    Column("zone", String(64), nullable=False),
    Column("packs", Text, nullable=False),  # JSON list; empty: every pack enabled in the scope
    Column("topic", String(64)),
    Column("difficulty", String(10)),
    Column("reveal_after_hours", Float),
    Column("set_by", String(100), nullable=False),
    Column("paused", Boolean, nullable=False),
    Column("pause_reason", Text),
    Column("last_day", Date),
    Column("cycle", Integer, nullable=False),
    Column("next_at", UTCDateTime),
    Column("updated_at", UTCDateTime, nullable=False),
    Index("ix_daily_schedules_next", "next_at"),
    Index("ix_daily_schedules_scope", "platform", "scope"),
)

# One row per channel and local day: the unique key is the claim that makes a post happen once.
daily_posts = Table(
    "daily_posts",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("platform", String(20), nullable=False),
    Column("scope", String(100), nullable=False),
    Column("channel_id", String(100), nullable=False),
    Column("day", Date, nullable=False),
    Column("pack_id", String(40), nullable=False),
    Column("question_id", String(64), nullable=False),
    Column("cycle", Integer, nullable=False),
    Column("status", String(10), nullable=False),  # claimed | posted | failed
    Column("message_ref", String(200)),
    Column("posted_at", UTCDateTime, nullable=False),
    Column("reveal_at", UTCDateTime, nullable=False),
    Column("revealed_at", UTCDateTime),
    Column("answered", Integer, nullable=False),
    Column("right", Integer, nullable=False),
    Column("tally_dirty", Boolean, nullable=False),  # the post's tally needs an edit
    Column("tally_edited_at", UTCDateTime),
    UniqueConstraint("platform", "channel_id", "day", name="uq_daily_posts_channel_day"),
    Index("ix_daily_posts_reveal", "revealed_at", "reveal_at"),
    Index("ix_daily_posts_cycle", "platform", "channel_id", "cycle"),
    Index("ix_daily_posts_message", "platform", "message_ref"),  # the post a thread or a reply is under
)

daily_answers = Table(
    "daily_answers",
    metadata,
    Column("post_id", String(32), primary_key=True),
    Column("user_id", String(100), primary_key=True),
    Column("name", String(100), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("hinted", Boolean, nullable=False),
    Column("done", Boolean, nullable=False),
    Column("correct", Boolean, nullable=False),
    Column("first_at", UTCDateTime),
    Column("done_at", UTCDateTime),
    Column("selections", Text, nullable=False),  # JSON object: menu picks before Check
    Column("last_key", String(200)),  # the platform's id of the delivery last counted: a redelivery is refused
)

daily_learners = Table(
    "daily_learners",
    metadata,
    Column("platform", String(20), primary_key=True),
    Column("user_id", String(100), primary_key=True),
    Column("zone", String(64), nullable=False),
    Column("review_cap", Integer, nullable=False),
    Column("new_cap", Integer, nullable=False),
    Column("packs", Text, nullable=False),  # JSON list
    Column("remind_at", String(5)),  # HH:MM; NULL: no reminder
    Column("remind_zone", String(64)),
    Column("remind_failures", Integer, nullable=False),
    Column("remind_stopped", Boolean, nullable=False),
    Column("remind_last_day", Date),
    Column("remind_next_at", UTCDateTime),
    Column("streak_current", Integer, nullable=False),
    Column("streak_longest", Integer, nullable=False),
    Column("streak_freezes", Integer, nullable=False),
    Column("streak_last_day", Date),
    Column("streak_frozen_days", Integer, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Index("ix_daily_learners_remind", "remind_next_at"),
)

daily_days = Table(
    "daily_days",
    metadata,
    Column("platform", String(20), primary_key=True),
    Column("user_id", String(100), primary_key=True),
    Column("day", Date, primary_key=True),  # the learner's review day (rolls over at 04:00)
    Column("reviews", Integer, nullable=False),
    Column("new", Integer, nullable=False),
    Column("channel", Integer, nullable=False),
)

daily_cards = Table(
    "daily_cards",
    metadata,
    Column("platform", String(20), primary_key=True),
    Column("user_id", String(100), primary_key=True),
    Column("pack_id", String(40), primary_key=True),
    Column("question_id", String(64), primary_key=True),
    Column("failures", Integer, nullable=False),
    Column("suspended", Boolean, nullable=False),  # a leech: out of the daily review until reset
)

# One row per learner and local day: the claim that makes a reminder go out at most once.
daily_reminders = Table(
    "daily_reminders",
    metadata,
    Column("platform", String(20), primary_key=True),
    Column("user_id", String(100), primary_key=True),
    Column("day", Date, primary_key=True),
    Column("status", String(10), nullable=False),  # claimed | sent | skipped | failed
    Column("due", Integer, nullable=False),
    Column("claimed_at", UTCDateTime, nullable=False),
)

DAILY_TABLES = (daily_schedules, daily_posts, daily_answers, daily_learners, daily_days, daily_cards, daily_reminders)
