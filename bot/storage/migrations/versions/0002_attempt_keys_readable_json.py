"""Attempts get a unique action key; sessions' JSON gets readable keys.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-03

`attempts.key` (unique, NULL for older rows) records which platform action made the attempt, so
an action delivered twice is recorded once. Every session's `data` is rewritten from one-letter
keys (`p`, `q`, `a`, ... and `by`, `by_name`) to readable ones (`pack`, `question`, `attempts`, ...
and `started_by`, `started_by_name`); downgrade writes the old keys back. The key tables live in
this file, not imported from the code, so this migration keeps meaning what it meant.
"""

import json
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

ITEM_KEYS = {
    "p": "pack",
    "q": "question",
    "a": "attempts",
    "d": "done",
    "c": "correct",
    "s": "skipped",
    "h": "hinted",
    "pt": "points",
    "o": "order",
    "sel": "selections",
    "la": "last_answer",
    "cd": "card",
}
SESSION_KEYS = {"by": "started_by", "by_name": "started_by_name"}
BATCH = 500

sessions = sa.table("sessions", sa.column("id", sa.String), sa.column("data", sa.Text))


def _renamed(data: dict[str, Any], session_keys: dict[str, str], item_keys: dict[str, str]) -> dict[str, Any]:
    out = {session_keys.get(k, k): v for k, v in data.items()}
    out["items"] = [{item_keys.get(k, k): v for k, v in item.items()} for item in data.get("items", [])]
    return out


def _rewrite(change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    bind = op.get_bind()
    last = ""
    while True:
        rows = bind.execute(
            sa.select(sessions.c.id, sessions.c.data).where(sessions.c.id > last).order_by(sessions.c.id).limit(BATCH)
        ).all()
        if not rows:
            return
        updates = []
        for row in rows:
            new = json.dumps(change(json.loads(row.data)), separators=(",", ":"), ensure_ascii=False)
            if new != row.data:
                updates.append({"b_id": row.id, "data": new})
        if updates:
            bind.execute(sessions.update().where(sessions.c.id == sa.bindparam("b_id")), updates)
        last = rows[-1].id


def upgrade() -> None:
    op.add_column("attempts", sa.Column("key", sa.String(80)))
    op.create_index("ix_attempts_key", "attempts", ["key"], unique=True)
    _rewrite(lambda data: _renamed(data, SESSION_KEYS, ITEM_KEYS))


def downgrade() -> None:
    back_items = {v: k for k, v in ITEM_KEYS.items()}
    back_session = {v: k for k, v in SESSION_KEYS.items()}
    _rewrite(lambda data: _renamed(data, back_session, back_items))
    op.drop_index("ix_attempts_key", table_name="attempts")
    with op.batch_alter_table("attempts") as batch:
        batch.drop_column("key")
