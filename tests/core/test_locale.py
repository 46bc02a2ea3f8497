"""Who gets which language: the learner's choice, their app's, the server's, English; in that order."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from bot.core import queries as q
from bot.core import requests as rq
from bot.core.admin import Admins
from bot.core.errors import NotAllowed, UnknownName
from bot.core.locale import Locales, hint_key
from bot.core.model import Actor
from tests.memory_repo import MemoryRepository

ANN = Actor("discord", "g1", "ann", "Ann", channel_id="c1")
ADA = Actor("discord", "g1", "ada", "Ada", is_admin=True, channel_id="c1")


async def test_the_order_choice_then_app_then_server_then_english() -> None:
    repo = MemoryRepository()
    locales = Locales(repo, Admins())
    assert await locales.learner(ANN) == "en"
    assert await locales.learner(replace(ANN, locale="ja")) == "en"  # a language the bot does not speak
    assert await locales.learner(replace(ANN, server_locale="de")) == "de"  # the server's default
    assert await repo.get_setting(hint_key("discord", "g1")) == "de"  # kept for posts no request causes
    assert await locales.server("discord", "g1") == "de"
    assert await locales.learner(replace(ANN, locale="es-ES", server_locale="de")) == "es"  # the app beats the server
    await locales.on_language(ANN, rq.Language("de"))
    assert await locales.learner(replace(ANN, locale="es-ES")) == "de"  # the choice beats the app
    await locales.on_language(ANN, rq.Language("auto"))
    assert await locales.learner(replace(ANN, locale="es-ES")) == "es"


async def test_the_servers_language_is_the_admins_and_is_read_again_after_a_change() -> None:
    repo = MemoryRepository()
    locales = Locales(repo, Admins())
    assert await locales.server("discord", "g1", "de") == "de"  # Discord's preferred locale
    with pytest.raises(NotAllowed):
        await locales.on_language(ANN, rq.Language("es", server=True))
    said = await locales.on_language(ADA, rq.Language("es", server=True))
    assert "ahora están en español" in said.messages[0].text()  # said in the language just chosen
    assert await locales.server("discord", "g1", "de") == "es"  # the admins' choice beats the platform's
    assert await locales.learner(ANN) == "es"
    with pytest.raises(UnknownName, match="`en`, `es`, `de`, `auto`"):
        await locales.on_language(ANN, rq.Language("xx"))


async def test_a_platform_lookup_is_asked_only_when_the_actor_carries_no_language() -> None:
    repo = MemoryRepository()
    locales = Locales(repo, Admins())
    asked: list[str] = []

    async def slack_locale(actor: Actor) -> str | None:
        asked.append(actor.user_id)
        return "de-DE"

    await locales._platform_locales(q.PlatformLocales("slack", slack_locale))
    assert await locales.learner(Actor("slack", "T1", "U1")) == "de"
    assert await locales.learner(Actor("discord", "g1", "ann")) == "en"  # another platform: not asked
    assert await locales.learner(Actor("slack", "T1", "U2", locale="es")) == "es"
    assert asked == ["U1"]


class _SlowSettings(MemoryRepository):
    """A repository whose setting reads wait for a gate and are counted."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[str] = []
        self.gate = asyncio.Event()

    async def get_setting(self, key: str) -> str | None:
        self.reads.append(key)
        value = await super().get_setting(key)  # what is stored when the read begins
        await self.gate.wait()
        return value


async def test_requests_that_find_the_servers_language_unread_share_one_read() -> None:
    repo = _SlowSettings()
    locales = Locales(repo, Admins())
    waiting = [asyncio.ensure_future(locales.server("discord", "g1")) for _ in range(20)]
    await asyncio.sleep(0)
    repo.gate.set()
    assert await asyncio.gather(*waiting) == ["en"] * 20
    assert repo.reads == ["language-server:discord:g1", "language-hint:discord:g1"]  # once, not 20 times
    assert await locales.server("discord", "g1") == "en"
    assert len(repo.reads) == 2  # remembered


async def test_a_change_made_while_a_read_runs_is_not_hidden_by_that_read() -> None:
    repo = _SlowSettings()
    locales = Locales(repo, Admins())
    before = asyncio.ensure_future(locales.server("discord", "g1"))
    await asyncio.sleep(0)  # the read has begun, with the old value
    changing = asyncio.ensure_future(locales.on_language(ADA, rq.Language("de", server=True)))
    await asyncio.sleep(0)
    repo.gate.set()
    await changing
    await before
    assert await locales.server("discord", "g1") == "de"  # the old read was not kept over the change
