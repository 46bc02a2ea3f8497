"""The repository's parts: copies handed out, readable JSON, and migration 0002 over old rows."""

from __future__ import annotations

import json
from dataclasses import fields
from datetime import UTC, datetime

from sqlalchemy import insert, select

from bot.core.model import ITEM_DEFAULTS, Anchor, ItemState, Owner, Session
from bot.storage import create_engine, open_repository
from bot.storage import tables as t
from tests.storage import clicks
from tests.storage.conftest import migrate_to

AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
OLD_DATA = {  # a session's data as written before migration 0002
    "items": [
        {"p": "demo", "q": "q-choice", "a": 1, "d": True, "c": True, "s": False, "h": True, "pt": 2, "o": [2, 0, 1],
         "sel": {"1": 1}, "la": "0", "cd": '{"card_id": 1}'},
        {"p": "demo", "q": "q-short", "a": 0, "d": False, "c": False, "s": False, "h": False, "pt": 0, "o": [],
         "sel": {}, "la": None, "cd": None},
    ],
    "filters": {"pack": "demo", "count": 2},
    "anchor": {"channel": "c1"},
    "by": "ann",
    "by_name": "Ann",
}


def _old_row(session_id: str) -> dict[str, object]:
    return {
        "id": session_id, "platform": "discord", "scope": "g", "owner_kind": "user", "owner_id": "ann",
        "status": "active", "position": 1, "data": json.dumps(OLD_DATA), "created_at": AT, "updated_at": AT, "version": 3,
    }


async def test_sessions_handed_out_are_copies(any_url: str) -> None:
    repo = await open_repository(any_url)
    try:
        await repo.create_session(clicks.new_session("s", "ann", 3))
        got = await repo.get_session("s")
        assert got is not None
        current = got.current
        assert current is not None and current is got.items[0]
        current.attempts = 5  # changed (on the session's own copy of the item), never saved
        got.position, got.anchor = 2, Anchor("y")
        again = await repo.get_session("s")
        active = await repo.active_session(Owner("discord", "guild", "user", "ann"))
        assert again is not None and active is not None and again is not got and active is not again
        for fresh in (again, active):
            assert (fresh.position, fresh.items[0].attempts, fresh.anchor, fresh.version) == (0, 0, Anchor(), 0)
        again.position = 1
        await repo.save_session(again)
        again.position = 2  # changed after the save: not stored either
        stored = await repo.get_session("s")
        assert stored is not None and (stored.position, stored.version) == (1, 1)
    finally:
        await repo.close()


async def test_stored_json_uses_readable_keys_and_old_rows_still_read(any_url: str) -> None:
    repo = await open_repository(any_url)
    try:
        session = clicks.new_session("new", "ann", 2)
        session.items[0].attempts, session.items[0].selections = 1, {0: 2}
        await repo.create_session(session)
        async with repo.db.write() as c:
            await c.execute(insert(t.sessions).values(**_old_row("old")))
        async with repo.engine.connect() as c:
            data = json.loads((await c.execute(select(t.sessions.c.data).where(t.sessions.c.id == "new"))).scalar_one())
        assert set(data) == {"items", "filters", "anchor", "started_by", "started_by_name"}
        assert data["items"][0] == {"pack": "demo", "question": "q0", "attempts": 1, "selections": {"0": 2}}
        old = await repo.get_session("old")
        assert old is not None
        _assert_old_session_read(old)
    finally:
        await repo.close()


def _assert_old_session_read(old: Session) -> None:
    assert (old.started_by, old.started_by_name, old.position, old.version) == ("ann", "Ann", 1, 3)
    first, second = old.items
    assert (first.pack, first.question, first.attempts, first.done, first.correct, first.hinted, first.points) == (
        "demo", "q-choice", 1, True, True, True, 2
    )
    assert (first.order, first.selections, first.picked, first.card) == ([2, 0, 1], {1: 1}, [0], '{"card_id": 1}')
    assert (second.question, second.attempts, second.done, second.card) == ("q-short", 0, False, None)
    assert old.filters == {"pack": "demo", "count": 2} and old.anchor == Anchor("c1")


async def test_migration_0002_rewrites_old_rows_and_downgrade_restores_them(any_url: str) -> None:
    engine = create_engine(any_url)

    try:
        async with engine.begin() as c:
            await c.run_sync(migrate_to("0001"))
        async with engine.begin() as c:
            await c.execute(insert(t.sessions).values(**_old_row("old")))
        async with engine.begin() as c:
            await c.run_sync(migrate_to("head"))
        async with engine.connect() as c:
            data = json.loads((await c.execute(select(t.sessions.c.data))).scalar_one())
        assert data["started_by"] == "ann" and "by" not in data
        assert data["items"][0]["pack"] == "demo" and data["items"][0]["selections"] == {"1": 1}
        assert all(len(k) > 2 for item in data["items"] for k in item)
        async with engine.begin() as c:
            await c.run_sync(migrate_to("-0001"))
        async with engine.connect() as c:
            assert json.loads((await c.execute(select(t.sessions.c.data))).scalar_one()) == OLD_DATA
    finally:
        await engine.dispose()
    repo = await open_repository(any_url)  # and up again, through the normal start
    try:
        migrated = await repo.get_session("old")
        assert migrated is not None
        _assert_old_session_read(migrated)
    finally:
        await repo.close()


def test_every_item_field_round_trips_through_json() -> None:
    assert [f.name for f in fields(ItemState)] == list(ITEM_DEFAULTS)
    full = ItemState("demo", "q", 2, True, True, True, True, 3, [2, 0, 1], [1, 2], {1: 2}, '{"card_id": 1}')
    assert ItemState.from_json(json.loads(json.dumps(full.to_json()))) == full
    fresh = ItemState("demo", "q")
    assert fresh.to_json() == {"pack": "demo", "question": "q"}
    back = ItemState.from_json(fresh.to_json())
    assert back == fresh and back.order is not ITEM_DEFAULTS["order"]
    back.order.append(1)
    back.picked.append(1)
    back.selections[0] = 1
    assert ItemState.from_json(fresh.to_json()) == fresh  # no default shared between items
