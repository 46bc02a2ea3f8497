"""Export and delete one learner's rows on SQLite and PostgreSQL, and nobody else's."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import Boolean, Date, Float, Integer, Table, Text, and_, delete, insert, select

from bot.core import Actor, QuizService
from bot.core import requests as rq
from bot.core.packs import load_path
from bot.storage import daily_tables as d
from bot.storage import open_repository
from bot.storage import social_tables as s
from bot.storage import work_tables as w
from bot.storage.privacy import TABLES, PrivacyStore
from bot.storage.tables import UTCDateTime, metadata
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock, LocalRunner

USER_COLUMNS = ("user_id", "owner_id", "set_by")
ANN = Actor("discord", "guild-1", "ann", "Ann")
BOB = Actor("discord", "guild-1", "bob", "Bob")


def filler(table: Table, **given: Any) -> dict[str, Any]:
    """A row for `table`: the given values, and a plain value of the right type in every other column."""
    row: dict[str, Any] = {}
    for column in table.columns:
        if column.name in given:
            row[column.name] = given[column.name]
        elif isinstance(column.type, UTCDateTime):
            row[column.name] = datetime(2026, 12, 1, 9, tzinfo=UTC)
        elif isinstance(column.type, Date):
            row[column.name] = date(2026, 12, 1)
        elif isinstance(column.type, Boolean):
            row[column.name] = False
        elif isinstance(column.type, Integer):
            row[column.name] = 1
        elif isinstance(column.type, Float):
            row[column.name] = 1.0
        elif isinstance(column.type, Text):
            row[column.name] = "[]"
        else:
            row[column.name] = "x"
    return row


async def seed(repo: Any) -> None:
    """Rows for ann and bob in every daily and social table, on Discord; and ann on Slack too."""
    async with repo.engine.begin() as c:
        for post, platform in (("p-discord", "discord"), ("p-slack", "slack")):
            await c.execute(insert(d.daily_posts).values(filler(d.daily_posts, id=post, platform=platform, channel_id=post)))
        for race, platform in (("r-discord", "discord"), ("r-slack", "slack")):
            await c.execute(insert(s.races).values(filler(s.races, id=race, platform=platform, channel_id=race, status="done")))
        for user in ("ann", "bob"):
            for platform, post, race in (("discord", "p-discord", "r-discord"), ("slack", "p-slack", "r-slack")):
                for table in (d.daily_learners, d.daily_days, d.daily_cards, d.daily_reminders, s.leaderboard_privacy):
                    # answers played before may have made the learner's row already (their streak)
                    await c.execute(delete(table).where(and_(table.c.platform == platform, table.c.user_id == user)))
                    await c.execute(insert(table).values(filler(table, platform=platform, user_id=user)))
                await c.execute(insert(d.daily_answers).values(filler(d.daily_answers, post_id=post, user_id=user)))
                work = filler(w.unfinished_work, id=f"{platform}-{user}", platform=platform, user_id=user)
                await c.execute(insert(w.unfinished_work).values(work))
                await c.execute(insert(s.race_answers).values(filler(s.race_answers, race_id=race, user_id=user, seq=1 if user == "ann" else 2)))
                await c.execute(insert(s.race_drafts).values(filler(s.race_drafts, race_id=race, user_id=user)))
                await c.execute(
                    insert(d.daily_schedules).values(filler(d.daily_schedules, platform=platform, channel_id=f"C-{user}", set_by=user))
                )


async def play(service: QuizService, actor: Actor) -> None:
    await service.handle(actor, rq.Language("es"))  # a setting about the learner: their language
    await service.start(actor, pack="demo", question="q-short")
    await service.submit_text(actor, "6")  # an attempt and a review card
    await service.start(actor, pack="demo", count=3)  # and a quiz still running
    session = await service.active_session(actor)
    assert session is not None and session.current is not None
    await service.hint(actor)


def test_every_table_with_a_user_column_is_covered() -> None:
    with_users = {t.name for t in metadata.tables.values() if any(c.name in USER_COLUMNS for c in t.columns)}
    # `settings` has no user column: a value about one learner is keyed `PLATFORM:<what>:USER_ID` (their language).
    assert with_users | {"settings"} == {c.table.name for c in TABLES}


async def test_a_learners_settings_are_found_by_their_key_and_nobody_elses(any_url: str) -> None:
    repo = await open_repository(any_url)
    try:
        store = PrivacyStore(repo.engine)
        for key, value in (
            ("discord:language:ann", "es"), ("discord:language:xann", "de"), ("slack:language:ann", "de"),
            ("discord:commands:ann", "digest"), ("language-server:discord:ann", "de"), ("discord:language:a_n", "de"),
        ):
            await repo.set_setting(key, value)
        exported = await store.export_user("discord", "ann")
        # The bot's own values are keyed too (`discord:commands:<application id>`): a person never has that id.
        assert sorted(r["key"] for r in exported["settings"]) == ["discord:commands:ann", "discord:language:ann"]
        assert "settings" not in await store.export_user("discord", "a%n")  # no wildcard in a user id
        await store.delete_user("discord", "ann")
        assert await repo.get_setting("discord:language:ann") is None
        assert await repo.get_setting("discord:language:xann") == "de" and await repo.get_setting("slack:language:ann") == "de"
        assert await repo.get_setting("language-server:discord:ann") == "de" and await repo.get_setting("discord:language:a_n") == "de"
    finally:
        await repo.close()


async def test_export_and_delete_touch_one_learner_on_one_platform(any_url: str) -> None:
    repo = await open_repository(any_url)
    try:
        service = QuizService(repository=repo, runner=LocalRunner(), clock=FakeClock(), rng=random.Random(3))
        await service.import_pack(load_path(DEMO_PACK).pack)
        for actor in (ANN, BOB):
            await play(service, actor)
        await seed(repo)
        store = PrivacyStore(repo.engine)

        ann = await store.export_user("discord", "ann")
        assert set(ann) == {c.table.name for c in TABLES}  # a row in every covered table
        assert all(len(rows) == 1 for name, rows in ann.items() if name not in ("attempts", "reviews", "sessions"))
        assert len(ann["sessions"]) == 2  # the finished quiz and the running one
        assert len(ann["attempts"]) >= 1 and ann["attempts"][0]["user_id"] == "ann"
        assert ann["sessions"][0]["owner_id"] == "ann" and isinstance(ann["sessions"][0]["data"], dict)
        assert ann["daily_answers"][0]["post_id"] == "p-discord"  # not the Slack post's answer
        assert ann["race_answers"][0]["race_id"] == "r-discord"
        assert isinstance(ann["attempts"][0]["at"], str)  # JSON-ready: datetimes as ISO text
        bob_before = await store.export_user("discord", "bob")
        slack_ann_before = await store.export_user("slack", "ann")

        counts = await store.delete_user("discord", "ann")
        assert counts["attempts"] == len(ann["attempts"]) and counts["daily_answers"] == 1
        assert await store.export_user("discord", "ann") == {}
        assert await store.export_user("discord", "bob") == bob_before
        assert await store.export_user("slack", "ann") == slack_ann_before
        async with repo.engine.connect() as c:
            setters = sorted(r.set_by for r in await c.execute(select(d.daily_schedules.c.set_by)))
        assert setters == ["", "ann", "bob", "bob"]  # ann's Discord schedule stays, without her id
        assert await service.active_session(BOB) is not None
    finally:
        await repo.close()
