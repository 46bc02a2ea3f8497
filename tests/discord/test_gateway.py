"""`run_discord` end to end: log in, sync commands, connect to a (fake) gateway, answer, stop when cancelled."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import discord
import pytest
from pydantic import SecretStr

from bot.adapters.discord import run_discord
from bot.app import App
from bot.core import QuizService
from bot.storage import SqlRepository
from tests.fakes import LocalRunner

from . import payloads as p
from .conftest import settings_for
from .fake_discord import FakeDiscord

MESSAGE_CONTENT = 1 << 15


async def until(condition: Callable[[], Any]) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout=30)  # a bound on waiting, not an assertion on speed


async def test_run_discord_connects_answers_and_stops_when_cancelled(
    fake: FakeDiscord, service: QuizService, repository: SqlRepository, runner: LocalRunner, db_url: str
) -> None:
    settings = settings_for(fake, db_url, discord_guild_ids=[int(p.GUILD_ID)])
    app = App(settings=settings, repository=repository, service=service, runner=runner)
    task = asyncio.create_task(run_discord(app, settings))
    try:
        await until(fake.ready.is_set)
        (identify,) = fake.identify
        assert identify["intents"] & MESSAGE_CONTENT  # needed for code blocks in quiz threads
        # A development guild gets the commands at once, and there is no global sync.
        assert fake.find("PUT", rf"^/applications/\d+/guilds/{p.GUILD_ID}/commands$")
        assert not fake.find("PUT", r"^/applications/\d+/commands$")
        payload = p.interaction(2, p.command("help"), p.ALICE)
        fake.interactions[payload["id"]] = payload
        await fake.dispatch("INTERACTION_CREATE", payload)
        await until(lambda: fake.callbacks(payload["id"]))
        (callback,) = fake.callbacks(payload["id"])
        assert "/quiz start" in callback.body["data"]["embeds"][0]["description"]
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert task.cancelled()


async def test_without_the_message_content_intent_it_runs_on_and_says_so(
    fake: FakeDiscord,
    service: QuizService,
    repository: SqlRepository,
    runner: LocalRunner,
    db_url: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake.allowed_intents = ~MESSAGE_CONTENT  # the intent is off in the Developer Portal
    settings = settings_for(fake, db_url)
    app = App(settings=settings, repository=repository, service=service, runner=runner)
    task = asyncio.create_task(run_discord(app, settings))
    try:
        await until(fake.ready.is_set)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    first, second = fake.identify
    assert first["intents"] & MESSAGE_CONTENT and not second["intents"] & MESSAGE_CONTENT
    assert any("Message Content intent is off" in r.getMessage() for r in caplog.records)


async def test_a_wrong_token_stops_with_a_clear_error(
    fake: FakeDiscord, service: QuizService, repository: SqlRepository, runner: LocalRunner, db_url: str
) -> None:
    settings = settings_for(fake, db_url).model_copy(update={"discord_token": SecretStr("not-the-token")})
    app = App(settings=settings, repository=repository, service=service, runner=runner)
    with pytest.raises(discord.LoginFailure):
        await run_discord(app, settings)
