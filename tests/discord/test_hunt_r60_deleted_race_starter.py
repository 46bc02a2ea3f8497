"""`/quiz my-data delete` by a learner who started a race: the race still named them.

The race's stored copy keeps who started it (`by`, `by_name` in `races.data`). After the learner
deleted their data, the bot still told the next person "A race is already running in this channel
(started by Alice)", and the database still held Alice's id and name. Now deleting a learner's
data blanks them in the races they started, as a daily schedule's `set_by` is blanked; the
export lists those races.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import select

from bot.adapters.discord import create_client
from bot.adapters.discord.api import use_api
from bot.app import App
from bot.core import QuizService
from bot.core.race import Outbox, RaceService, SocialService
from bot.storage import open_repository
from bot.storage import social_tables as st
from bot.storage.privacy import PrivacyStore
from bot.storage.social import SocialStore
from tests.fakes import FakeClock
from tests.race.helpers import race_pack

from . import payloads as p
from .conftest import Answer, Harness, settings_for
from .fake_discord import BOT_TOKEN, FakeDiscord


@pytest.fixture
async def racing(fake: FakeDiscord, db_url: str, clock: FakeClock) -> AsyncIterator[tuple[Harness, Any]]:
    repository = await open_repository(db_url)
    store = SocialStore.beside(repository)
    outbox = Outbox()
    races = RaceService(repository=repository, store=store, clock=clock, publish=outbox, rng=random.Random(1), timers=False)
    service = QuizService(
        repository=repository, runner=None, clock=clock, races=races, social=SocialService(store=store, clock=clock)
    )
    service.my_data.store = PrivacyStore(repository.db.engine)  # as bot/app.py wires it
    await service.import_pack(race_pack(choices=3, others=False))
    settings = settings_for(fake, db_url)
    use_api(fake.api_url)
    client = create_client(App(settings, repository, service, None, outbox=outbox), settings)
    await client.login(BOT_TOKEN)
    yield Harness(fake, client, service), repository.db.engine
    await races.aclose()
    await client.close()
    await repository.close()


def exported(answer: Answer) -> dict[str, Any]:
    files = [f for call in answer.calls for f in call.files]
    assert len(files) == 1, [name for name, _ in files]
    document: dict[str, Any] = json.loads(files[0][1])
    return document


async def delete_my_data(bot: Harness, user: p.User) -> None:
    ask = await bot.command(user, "delete", None, group="my-data")
    done = await bot.click(user, ask.stored()[-1], "Delete everything")
    assert "Your data was deleted" in done.text(), done.text()


async def stored_races(engine: Any) -> list[str]:
    async with engine.connect() as c:
        return [str(row.data) for row in await c.execute(select(st.races.c.data))]


async def test_a_deleted_race_starter_is_no_longer_named_by_the_running_race(racing: tuple[Harness, Any]) -> None:
    bot, engine = racing
    start = await bot.command(p.ALICE, "start", [p.option("pack", "race-pack"), p.option("rounds", 3)], group="race")
    assert "A race starts!" in start.text(), start.text()
    await delete_my_data(bot, p.ALICE)
    again = await bot.command(p.BOB, "start", [p.option("pack", "race-pack"), p.option("rounds", 3)], group="race")
    assert "already running" in again.text(), again.text()
    assert "Alice" not in again.text(), again.text()
    assert not any(p.ALICE.id in data or "Alice" in data for data in await stored_races(engine))
    refused = await bot.command(p.BOB, "stop", group="race")
    assert "Only an admin can stop this race." in refused.text(), refused.text()
    stopped = await bot.command(p.ADMIN, "stop", group="race")  # an admin still stops it
    assert "stopped after 0 of 3 rounds" in stopped.text(), stopped.text()


async def test_a_finished_race_keeps_no_trace_of_its_deleted_starter(racing: tuple[Harness, Any]) -> None:
    bot, engine = racing
    await bot.command(p.ALICE, "start", [p.option("pack", "race-pack"), p.option("rounds", 3)], group="race")
    stopped = await bot.command(p.ALICE, "stop", group="race")
    assert "stopped after 0 of 3 rounds" in stopped.text(), stopped.text()
    mine = exported(await bot.command(p.ALICE, "export", None, group="my-data"))
    assert [row["by"] for row in mine["tables"]["races"]] == [p.ALICE.id], mine["tables"]
    assert "races" not in exported(await bot.command(p.BOB, "export", None, group="my-data"))["tables"]
    await delete_my_data(bot, p.ALICE)
    assert not any(p.ALICE.id in data or "Alice" in data for data in await stored_races(engine))
    assert exported(await bot.command(p.ALICE, "export", None, group="my-data"))["tables"] == {}
