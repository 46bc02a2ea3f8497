"""SQLite's group commit in one trip: the check, every kept save's writes and the commit (`bot/storage/group_trip.py`)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text

from bot.core.model import Session
from bot.core.ports import Conflict
from bot.storage import SqlRepository, group_trip, open_repository
from bot.storage.group_trip import STATEMENT_ROWS
from bot.storage.sqlite_link import OneTripConnection
from tests.storage import clicks

TABLES = {  # what a save writes, without the attempts' row ids
    "sessions": "SELECT id, status, position, data, updated_at, version FROM sessions ORDER BY id",
    "attempts": "SELECT platform, scope, user_id, pack_id, question_id, topic, answer, correct, points, at, session_id, key,"
    " mode, detail FROM attempts ORDER BY key",
    "reviews": "SELECT * FROM reviews ORDER BY user_id, question_id",
    "first_attempts": "SELECT pack_id, platform, user_id, question_id, scope, correct, answer, secs, tries, solved,"
    " tries_any, solved_any FROM first_attempts ORDER BY user_id, question_id",
}


async def _tables(repo: SqlRepository) -> dict[str, list[tuple[Any, ...]]]:
    async with repo.engine.connect() as c:
        return {name: [tuple(row) for row in await c.execute(text(sql))] for name, sql in TABLES.items()}


def _count_trips(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record each call aiosqlite's thread runs, on every connection (aiosqlite's own queueing method, observed)."""
    trips: list[str] = []
    queue = OneTripConnection._execute

    async def counted(self: OneTripConnection, fn: Any, *args: Any, **kwargs: Any) -> Any:
        trips.append(getattr(fn, "__name__", repr(fn)))
        return await queue(self, fn, *args, **kwargs)

    monkeypatch.setattr(OneTripConnection, "_execute", counted)
    return trips


async def _sessions(repo: SqlRepository, n: int, *, user: str = "u{n}", scope: str = "guild") -> list[Session]:
    made = []
    for i in range(n):
        session = clicks.new_session(f"{scope}-s{i}", user.format(n=i), 3)
        session.owner = replace(session.owner, scope=scope)
        await repo.create_session(session)
        stored = await repo.get_session(session.id)
        assert stored is not None
        stored.position += 1
        made.append(stored)
    return made


async def _save(repo: SqlRepository, session: Session, key: str) -> None:
    before = replace(session, position=session.position - 1)  # the attempt is at the item answered
    await repo.save_session(session, clicks.attempt(before, key), clicks.card(before))


@pytest.mark.parametrize("sqlite_version", [None, (3, 31, 1)])
async def test_a_group_of_kept_saves_is_one_trip_and_stores_what_saving_each_alone_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sqlite_version: tuple[int, int, int] | None
) -> None:
    """Before 3.33 (no `UPDATE ... FROM`) the group takes its trips: check, writes, commit."""
    if sqlite_version is not None:
        monkeypatch.setattr(group_trip.sqlite3, "sqlite_version_info", sqlite_version)
    grouped = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'grouped.db'}")
    alone = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'alone.db'}")
    heard: list[str] = []
    try:
        together, one_by_one = await _sessions(grouped, 6), await _sessions(alone, 6)
        event.listen(grouped.engine.sync_engine, "before_cursor_execute", lambda *a: heard.append(a[2].split()[0]))
        trips = _count_trips(monkeypatch)
        await asyncio.gather(*(_save(grouped, s, f"k{n}") for n, s in enumerate(together)))
        if sqlite_version is None:
            assert trips and set(trips) == {"_call"}  # checked, written and committed in the thread: no other trip
            assert len(trips) <= 2  # one group, or the first save alone and the rest together
            assert heard.count("SELECT") == len(trips) and "UPDATE" in heard and "INSERT" in heard
        else:
            assert "_call" not in trips and {"_run", "_run_all", "_end"} <= set(trips)
        for n, s in enumerate(one_by_one):
            await _save(alone, s, f"k{n}")  # each its own transaction, through the conditional update first
        stored = await _tables(grouped)
        assert stored == await _tables(alone)
        assert [row[5] for row in stored["sessions"]] == [1] * 6 and len(stored["attempts"]) == 6
        assert len(stored["reviews"]) == 6 and len(stored["first_attempts"]) == 6
    finally:
        await grouped.close()
        await alone.close()


async def test_two_cards_for_one_question_in_one_group_are_one_card_with_both_answers(tmp_path: Path) -> None:
    repo = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'q.db'}")
    try:
        # One learner, one question, in two servers' quizzes: two cards for the same question, saved at once.
        first, second = await _sessions(repo, 1, user="ann", scope="g1"), await _sessions(repo, 1, user="ann", scope="g2")
        await asyncio.gather(_save(repo, first[0], "k1"), _save(repo, second[0], "k2"))
        async with repo.engine.connect() as c:
            cards = (await c.execute(text("SELECT user_id, question_id, answers FROM reviews"))).all()
            attempts = (await c.execute(text("SELECT count(*) FROM attempts WHERE user_id = 'ann'"))).scalar_one()
        assert [tuple(card) for card in cards] == [("ann", "q0", 2)]
        assert attempts == 2
    finally:
        await repo.close()


async def test_a_write_that_fails_in_the_trip_keeps_nothing_of_the_group_and_each_save_is_tried_alone(tmp_path: Path) -> None:
    repo = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'q.db'}")
    try:
        sessions = await _sessions(repo, 4)
        async with repo.engine.begin() as c:  # the database itself refuses one session's update (as a constraint would)
            await c.execute(text("CREATE TRIGGER refuse BEFORE UPDATE ON sessions WHEN old.id = 'guild-s2' BEGIN SELECT RAISE(ABORT, 'no'); END"))
        outcomes = await asyncio.gather(*(_save(repo, s, f"k{n}") for n, s in enumerate(sessions)), return_exceptions=True)
        assert [o is None for o in outcomes] == [True, True, False, True]
        stored = await _tables(repo)
        assert [row[5] for row in stored["sessions"]] == [1, 1, 0, 1]
        assert sorted(row[11] for row in stored["attempts"]) == ["k0", "k1", "k3"]
        assert len(stored["reviews"]) == 3 and len(stored["first_attempts"]) == 3
    finally:
        await repo.close()


async def test_an_update_that_changed_fewer_rows_than_checked_rolls_the_group_back_and_refuses_only_that_save(tmp_path: Path) -> None:
    repo = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'q.db'}")
    try:
        sessions = await _sessions(repo, 3)
        async with repo.engine.begin() as c:  # guild-s1's row is skipped without an error: the count comes back one short
            await c.execute(text("CREATE TRIGGER skip BEFORE UPDATE ON sessions WHEN old.id = 'guild-s1' BEGIN SELECT RAISE(IGNORE); END"))
        outcomes = await asyncio.gather(*(_save(repo, s, f"k{n}") for n, s in enumerate(sessions)), return_exceptions=True)
        assert outcomes[0] is None and outcomes[2] is None
        assert isinstance(outcomes[1], Conflict)  # alone, its conditional update changed nothing: refused
        stored = await _tables(repo)
        assert [row[5] for row in stored["sessions"]] == [1, 0, 1]
        assert sorted(row[11] for row in stored["attempts"]) == ["k0", "k2"]
    finally:
        await repo.close()


async def test_each_table_is_written_in_statements_of_powers_of_two_rows(tmp_path: Path) -> None:
    """A few small statement texts whatever the group's size, so the driver's statement cache keeps them.

    Small, too: each connection's cache holds a copy of the values last bound to each statement
    (statements of up to 128 rows raised a bot's RSS by about 20 MB).
    """
    repo = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'q.db'}")
    heard: list[str] = []
    try:
        sessions = await _sessions(repo, 2 * STATEMENT_ROWS + 7)
        event.listen(repo.engine.sync_engine, "before_cursor_execute", lambda *a: heard.append(a[2]))
        await asyncio.gather(*(_save(repo, s, f"k{n}") for n, s in enumerate(sessions)))
        inserts = [sql.count("), (") + 1 for sql in heard if sql.startswith("INSERT INTO attempts")]
        assert sum(inserts) == len(sessions) and all(rows & (rows - 1) == 0 for rows in inserts)  # e.g. 16 + 16 + 4 + 2 + 1
        assert max(inserts) == STATEMENT_ROWS  # a group larger than that: split, not one statement of its size
        async with repo.engine.connect() as c:
            assert (await c.execute(text("SELECT count(*) FROM attempts"))).scalar_one() == len(sessions)
    finally:
        await repo.close()
