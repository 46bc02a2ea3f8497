"""Leaderboard queries on SQLite and PostgreSQL: periods in a time zone, weights, ties, privacy."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import insert

from bot.core import QuizService
from bot.core.race import RaceService
from bot.core.race import actions as rx
from bot.core.race.board import leaderboard_message, period_start
from bot.storage import SqlRepository, open_repository
from bot.storage import social_tables as st
from bot.storage import tables as t
from bot.storage.social import SocialStore
from tests.fakes import FakeClock

from .conftest import Posts
from .helpers import member, postgres_url, race_pack

NOW = datetime(2026, 11, 30, 3, 0, tzinfo=UTC)  # Monday in UTC; Sunday 22:00 in New York
NEW_YORK = "America/New_York"


@pytest.fixture(params=["sqlite", "postgresql"])
async def repo(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SqlRepository]:
    if request.param == "sqlite":
        repository = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'board.db'}")
        yield repository
        await repository.close()
        return
    async with postgres_url() as url:
        repository = await open_repository(url)
        yield repository
        await repository.close()


class Attempts:
    """Writes attempts the way each source leaves them: a quiz, a channel's daily question, a race."""

    def __init__(self, repo: SqlRepository) -> None:
        self.repo = repo
        self.count = 0

    async def add(
        self,
        user: str,
        at: datetime,
        *,
        points: int = 1,
        correct: bool = True,
        source: str = "quiz",
        pack: str = "p1",
        scope: str = "guild-1",
    ) -> None:
        self.count += 1
        session_id = f"{source}{self.count}"
        async with self.repo.engine.begin() as c:
            if source == "race":
                await c.execute(
                    insert(st.races).values(
                        id=session_id, platform="discord", scope=scope, channel_id=f"c{self.count}", status="finished",
                        round=3, deadline=at, next_seq=1, data="{}", created_at=at, updated_at=at, version=1,
                    )
                )
            else:
                await c.execute(
                    insert(t.sessions).values(
                        id=session_id, platform="discord", scope=scope, owner_kind="channel" if source == "daily" else "user",
                        owner_id=user, status="finished", position=1, data="{}", created_at=at, updated_at=at, version=1,
                    )
                )
            await c.execute(
                insert(t.attempts).values(
                    platform="discord", scope=scope, user_id=user, pack_id=pack, question_id="q", topic=None,
                    answer="x", correct=correct, points=points if correct else 0, at=at, session_id=session_id,
                    mode=source,
                )
            )


def test_week_and_month_start_in_the_time_zone() -> None:
    assert period_start("week", NOW) == datetime(2026, 11, 30, tzinfo=UTC)
    assert period_start("week", NOW, NEW_YORK) == datetime(2026, 11, 23, 5, tzinfo=UTC)  # Monday 00:00 EST
    assert period_start("month", NOW, NEW_YORK) == datetime(2026, 11, 1, 4, tzinfo=UTC)  # still EDT on the 1st
    assert period_start("week", NOW, "Not/AZone") == datetime(2026, 11, 30, tzinfo=UTC)
    assert period_start("all", NOW) is None


async def test_week_boundaries_follow_the_servers_time_zone(repo: SqlRepository) -> None:
    rows = Attempts(repo)
    await rows.add("ann", datetime(2026, 11, 30, 1, 0, tzinfo=UTC))  # this week everywhere
    await rows.add("bob", datetime(2026, 11, 29, 12, 0, tzinfo=UTC))  # this week only in New York
    await rows.add("bob", datetime(2026, 11, 29, 13, 0, tzinfo=UTC))
    await rows.add("cat", datetime(2026, 11, 23, 4, 30, tzinfo=UTC))  # Sunday evening in New York: last week
    await rows.add("dan", NOW + timedelta(minutes=5))  # after now: not counted yet
    store = SocialStore.beside(repo)

    utc = await store.leaderboard("discord", "guild-1", now=NOW, period="week")
    assert [(r.user_id, r.points) for r in utc.by_points] == [("ann", 10)]
    local = await store.leaderboard("discord", "guild-1", now=NOW, period="week", tz=NEW_YORK)
    assert [(r.user_id, r.points) for r in local.by_points] == [("bob", 20), ("ann", 10)]
    month = await store.leaderboard("discord", "guild-1", now=NOW, period="month", tz=NEW_YORK)
    assert {r.user_id for r in month.by_points} == {"ann", "bob", "cat"}
    other = await store.leaderboard("discord", "guild-2", now=NOW, period="all")
    assert other.by_points == ()


async def test_sources_weigh_differently_and_ties_go_to_who_got_there_first(repo: SqlRepository) -> None:
    rows = Attempts(repo)
    base = datetime(2026, 11, 30, 1, 0, tzinfo=UTC)
    await rows.add("quiz", base + timedelta(minutes=1), points=1)
    await rows.add("quiz", base + timedelta(minutes=5), points=1)  # 2 × 10 = 20, reached at :05
    await rows.add("daily", base + timedelta(minutes=3), points=1, source="daily")  # 20, reached at :03
    await rows.add("racer", base + timedelta(minutes=4), points=100, source="race")  # 100 / 5 = 20, at :04
    await rows.add("slow", base + timedelta(minutes=2), points=89, source="race")  # 17.8 -> 17
    await rows.add("slow", base + timedelta(minutes=6), correct=False)  # a wrong answer changes nothing
    board = await SocialStore.beside(repo).leaderboard("discord", "guild-1", now=NOW, period="week")
    assert [(r.user_id, r.points) for r in board.by_points] == [("daily", 20), ("racer", 20), ("quiz", 20), ("slow", 17)]
    assert board.rank("quiz") == 3 and board.rank("nobody") is None


async def test_privacy_hides_a_learner_until_they_come_back(repo: SqlRepository) -> None:
    rows = Attempts(repo)
    for user in ("ann", "bob"):
        await rows.add(user, datetime(2026, 11, 30, 1, 0, tzinfo=UTC))
    store = SocialStore.beside(repo)
    await store.set_leaderboard_visible("discord", "bob", False)
    assert not await store.leaderboard_visible("discord", "bob")
    assert await store.leaderboard_visible("slack", "bob")  # per platform
    board = await store.leaderboard("discord", "guild-1", now=NOW, period="all")
    assert [r.user_id for r in board.by_points] == ["ann"]
    assert board.rank("bob") is None
    await store.set_leaderboard_visible("discord", "bob", True)
    board = await store.leaderboard("discord", "guild-1", now=NOW, period="all")
    assert sorted(r.user_id for r in board.by_points) == ["ann", "bob"]


async def test_accuracy_needs_twenty_answers_and_the_pack_filter_narrows(repo: SqlRepository) -> None:
    rows = Attempts(repo)
    start = datetime(2026, 11, 30, 0, 1, tzinfo=UTC)
    for i in range(20):
        await rows.add("ann", start + timedelta(seconds=i), correct=i < 15)  # 75% of 20
    for i in range(19):
        await rows.add("bob", start + timedelta(seconds=i))  # 100% but only 19
    for i in range(25):
        await rows.add("cat", start + timedelta(seconds=i), correct=i < 20, pack="p2")  # 80% of 25
    store = SocialStore.beside(repo)
    board = await store.leaderboard("discord", "guild-1", now=NOW, period="week")
    assert [(r.user_id, round(100 * r.accuracy)) for r in board.by_accuracy] == [("cat", 80), ("ann", 75)]
    only_p2 = await store.leaderboard("discord", "guild-1", now=NOW, period="week", pack="p2")
    assert [r.user_id for r in only_p2.by_points] == ["cat"]
    text = leaderboard_message(only_p2, {"cat": "<@cat>"}).text()
    assert "1. <@cat>: 200 pts" in text


async def test_an_empty_board_says_so_in_one_line(repo: SqlRepository) -> None:
    board = await SocialStore.beside(repo).leaderboard("discord", "guild-1", now=NOW, period="week")
    message = leaderboard_message(board)
    assert message.text() == "Nobody is on the leaderboard this week yet."


async def test_race_points_reach_the_board(tmp_path: Path) -> None:
    repo = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'race.db'}")
    try:
        clock = FakeClock(NOW)
        await QuizService(repository=repo, runner=None, clock=clock).import_pack(race_pack(others=False))
        store = SocialStore.beside(repo)
        races = RaceService(repository=repo, store=store, clock=clock, publish=Posts(), timers=False)
        await races.start(member("Ann"), rounds=3, seconds=30)
        race = await store.running_race("discord", "guild-1", "chan-1")
        assert race is not None
        await races.act(member("Bob"), rx.make(race.id, 0, rx.CHOOSE, 0))  # right at once: 100 points
        await races.act(member("Cat"), rx.make(race.id, 0, rx.CHOOSE, 1))  # wrong
        clock.advance(seconds=30)
        await races.tick()
        board = await store.leaderboard("discord", "guild-1", now=clock.now(), period="week")
        assert [(r.user_id, r.points, r.answers) for r in board.by_points] == [("bob", 20, 1)]
    finally:
        await repo.close()
