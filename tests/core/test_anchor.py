"""`Session.anchor` is one typed value on every platform; rows stored with the old per-platform dicts still read."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bot.core.model import Anchor, Where
from bot.storage.codec import session_data, session_from_row


def stored_row(anchor: dict[str, str]) -> dict[str, object]:
    data = {"items": [{"pack": "demo", "question": "q-code"}], "filters": {}, "anchor": anchor, "started_by": "ann"}
    now = datetime(2026, 12, 1, tzinfo=UTC)
    return {
        "id": "s1", "platform": "discord", "scope": "g1", "owner_kind": "user", "owner_id": "ann", "status": "active",
        "position": 0, "data": json.dumps(data), "created_at": now, "updated_at": now, "version": 1,
    }  # fmt: skip


def test_an_old_discord_row_in_a_thread_still_answers_code_sent_in_that_thread() -> None:
    old = session_from_row(stored_row({"platform": "discord", "channel_id": "T1", "guild_id": "g1", "thread": "1"}))
    assert old.anchor == Anchor(channel=None, thread="T1")
    assert old.anchor.holds(Where(channel="C1", thread="T1"))  # the thread's parent was never kept: any parent
    assert not old.anchor.holds(Where(channel="C1", thread="T2")) and not old.anchor.holds(Where(channel="C1"))
    outside = session_from_row(stored_row({"platform": "discord", "channel_id": "C1", "guild_id": "g1", "thread": "0"}))
    assert outside.anchor == Anchor(channel="C1") and not outside.anchor.holds(Where(channel="C1"))


def test_an_old_slack_row_reads_as_the_same_typed_value_and_is_written_back_in_the_new_shape() -> None:
    old = session_from_row(stored_row({"channel": "C1", "thread_ts": "1.5", "item_ts": "1.7"}))
    assert old.anchor == Anchor(channel="C1", thread="1.5", message="1.7")
    assert old.anchor.holds(Where(channel="C1", thread="1.5")) and not old.anchor.holds(Where(channel="C2", thread="1.5"))
    assert json.loads(session_data(old))["anchor"] == {"channel": "C1", "thread": "1.5", "message": "1.7"}
    assert session_from_row(stored_row({"channel": "D1", "thread_ts": "", "item_ts": ""})).anchor == Anchor("D1")


def test_a_session_without_an_anchor_holds_nothing() -> None:
    empty = session_from_row(stored_row({}))
    assert empty.anchor == Anchor() and not empty.anchor.holds(Where(channel="C1", thread="T1"))
