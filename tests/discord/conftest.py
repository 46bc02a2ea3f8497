"""Drive the Discord adapter through discord.py itself, against a fake Discord on 127.0.0.1.

Gateway events are handed to the library's own parsers (`ConnectionState.parsers[...]`, the
functions its websocket calls), and every HTTP request discord.py makes goes to FakeDiscord,
which records it: tests see the real serialisation of embeds, components and modals.
"""

from __future__ import annotations

import asyncio
import random
import warnings
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from pydantic import SecretStr

with warnings.catch_warnings():
    # discord.py imports audioop (voice), deprecated since Python 3.11; the suite turns warnings into errors.
    warnings.simplefilter("ignore", DeprecationWarning)
    import discord  # noqa: F401

from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot.adapters.discord import QuizBotClient, create_client
from bot.adapters.discord.api import use_api
from bot.adapters.discord.posts import DiscordPoster
from bot.app import App
from bot.core import CodeRunner, QuizService
from bot.core.packs import load_path
from bot.core.work import Unfinished
from bot.settings import Settings
from bot.storage import SqlRepository, open_repository
from tests.conftest import DEMO_PACK
from tests.daily.wired import Wired, wire
from tests.fakes import FakeClock, LocalRunner

from . import payloads as p
from .fake_discord import BOT_TOKEN, Call, FakeDiscord

TASK_PREFIXES = ("CommandTree-invoker", "discord-ui-", "discord.py: ")


@dataclass
class Answer:
    """Every call the bot made to Discord while handling one event."""

    payload: dict[str, Any]
    calls: list[Call]
    fake: FakeDiscord

    @property
    def callbacks(self) -> list[Call]:
        return [c for c in self.calls if c.path.endswith("/callback")]

    @property
    def callback(self) -> Call:
        assert len(self.callbacks) == 1, f"expected one interaction response, got {len(self.callbacks)}"
        return self.callbacks[0]

    @property
    def kind(self) -> int:
        return int(self.callback.body["type"])

    @property
    def data(self) -> dict[str, Any]:
        return self.callback.body.get("data") or {}

    def followups(self) -> list[Call]:
        return [c for c in self.calls if c.method == "POST" and c.path.startswith("/webhooks/")]

    def edits(self) -> list[Call]:
        return [c for c in self.calls if c.method == "PATCH"]

    def bodies(self) -> list[dict[str, Any]]:
        """Every message body sent or edited, in order (the response's, follow-ups, edits, channel messages)."""
        out = []
        for call in self.calls:
            if call.path.endswith("/callback") and call.body.get("type") in (4, 7):
                out.append(call.body["data"])
            elif (
                call.method in ("POST", "PATCH")
                and isinstance(call.body, dict)
                and ("/messages" in call.path or call.path.startswith("/webhooks/"))
            ):
                out.append(call.body)
        return out

    def embeds(self) -> list[dict[str, Any]]:
        return [e for body in self.bodies() for e in body.get("embeds") or []]

    def text(self) -> str:
        """All embed text sent in answer: titles, descriptions, fields, footers, and plain content."""
        chunks: list[str] = []
        for body in self.bodies():
            chunks.append(body.get("content") or "")
            for e in body.get("embeds") or []:
                chunks += [
                    e.get("title") or "",
                    e.get("description") or "",
                    (e.get("footer") or {}).get("text") or "",
                ]
                chunks += [f"{f['name']}: {f['value']}" for f in e.get("fields") or []]
        return "\n".join(c for c in chunks if c)

    def item(self) -> dict[str, Any]:
        """The stored message of the newest question (title "Question n of m", in Spanish or German too) this answer sent."""
        items = [
            m
            for m in self.stored()
            if any((e.get("title") or "").startswith(("Question", "Pregunta", "Frage")) for e in m["embeds"])
        ]
        assert items, f"no question in:\n{self.text()}"
        return items[-1]

    def stored(self) -> list[dict[str, Any]]:
        """The messages (as Discord now stores them) that this answer created, in order."""
        ids: list[str] = []
        for call in self.calls:
            if call.message_id and call.message_id not in ids and call.method == "POST":
                ids.append(call.message_id)
        return [self.fake.messages[i] for i in ids]


@dataclass
class Harness:
    fake: FakeDiscord
    client: QuizBotClient
    service: QuizService
    seen: list[str] = field(default_factory=list)

    async def feed(self, payload: dict[str, Any]) -> Answer:
        """Hand an INTERACTION_CREATE to discord.py's parser, as its gateway would, and wait for the bot."""
        self.fake.interactions[payload["id"]] = payload
        start = len(self.fake.calls)
        self.client._connection.parsers["INTERACTION_CREATE"](payload)
        await self.drain()
        self.seen.append(payload["id"])
        return Answer(payload, self.fake.calls[start:], self.fake)

    async def event(self, name: str, payload: dict[str, Any]) -> Answer:
        start = len(self.fake.calls)
        self.client._connection.parsers[name](payload)
        await self.drain()
        return Answer(payload, self.fake.calls[start:], self.fake)

    async def drain(self) -> None:
        """Wait until every task discord.py started for the event (and the bot's work in it) is done."""
        for _ in range(100):
            me = asyncio.current_task()
            pending = [
                t
                for t in asyncio.all_tasks()
                if t is not me and not t.done() and t.get_name().startswith(TASK_PREFIXES)
            ]
            if not pending:
                return
            await asyncio.wait(pending, timeout=60)
        raise AssertionError("the bot never finished")

    async def command(
        self, user: p.User, sub: str, options: list[dict[str, Any]] | None = None, **kw: Any
    ) -> Answer:
        group = kw.pop("group", None)
        resolved = kw.pop("resolved", None)
        return await self.feed(
            p.interaction(2, p.command(sub, options, group=group, resolved=resolved), user, **kw)
        )

    async def click(
        self,
        user: p.User,
        message: dict[str, Any],
        label_or_id: str,
        values: list[str] | None = None,
        **kw: Any,
    ) -> Answer:
        """Click a button (by label or custom_id) or choose in a menu (by custom_id or placeholder) of `message`."""
        comp = find_component(message, label_or_id)
        data = p.component(comp["custom_id"], comp["type"], values)
        return await self.feed(p.interaction(3, data, user, message=message, **kw))

    async def submit(
        self, user: p.User, custom_id: str, text: str, *, message: dict[str, Any] | None = None, **kw: Any
    ) -> Answer:
        return await self.feed(p.interaction(5, p.modal_submit(custom_id, text), user, message=message, **kw))

    def assert_all_acknowledged(self) -> None:
        for iid in self.seen:
            assert len(self.fake.callbacks(iid)) == 1, (
                f"interaction {iid} answered {len(self.fake.callbacks(iid))} times"
            )


def find_component(message: dict[str, Any], key: str) -> dict[str, Any]:
    for comp in components(message):
        if key in (comp.get("custom_id"), comp.get("label"), comp.get("placeholder")):
            return comp
        if comp.get("label", "").startswith(key + ". "):
            return comp
    raise AssertionError(f"no component {key!r} in {components(message)}")


def components(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for row in message["components"] for c in row["components"]]


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscord]:
    server = FakeDiscord()
    await server.start()
    # The adapter points these class attributes at DISCORD_API_URL: put them back afterwards.
    monkeypatch.setattr(Route, "BASE", Route.BASE)
    monkeypatch.setattr(DiscordWebSocket, "DEFAULT_GATEWAY", DiscordWebSocket.DEFAULT_GATEWAY)
    yield server
    await server.close()
    assert not server.violations, "Discord would have refused:\n" + "\n".join(server.violations)


def settings_for(fake: FakeDiscord, db_url: str, **extra: Any) -> Settings:
    return Settings(
        database_url=db_url,
        discord_token=SecretStr(BOT_TOKEN),
        discord_api_url=fake.api_url,
        packs=[],
        **extra,
    )


class BotRunner:
    """Start the bot, and start it again for a restart, over the same database and fake Discord."""

    def __init__(self, fake: FakeDiscord, db_url: str, runner: LocalRunner, clock: FakeClock) -> None:
        self.fake, self.db_url, self.runner, self.clock = fake, db_url, runner, clock
        self.opened: list[tuple[QuizBotClient, SqlRepository]] = []

    async def start(
        self,
        *,
        admins: frozenset[str] = frozenset(),
        guild_ids: list[int] | None = None,
        runner: CodeRunner | None = None,
        track_work: bool = False,
    ) -> Harness:
        """Start a bot process; `runner` replaces the shared one, `track_work` records unfinished work."""
        repository = await open_repository(self.db_url)
        service = QuizService(
            repository=repository,
            runner=runner or self.runner,
            clock=self.clock,
            rng=random.Random(7),
            admins=admins,
            work=Unfinished(repository.work, self.clock) if track_work else None,
            pending=repository.pending,
        )
        if not await repository.list_packs():
            await service.import_pack(load_path(DEMO_PACK).pack)
        settings = settings_for(self.fake, self.db_url, discord_guild_ids=guild_ids or [])
        use_api(self.fake.api_url)
        client = create_client(
            App(settings=settings, repository=repository, service=service, runner=runner or self.runner), settings
        )
        self.opened.append((client, repository))
        await client.login(BOT_TOKEN)  # HTTP login, then setup_hook: templates, command sync
        return Harness(self.fake, client, service)

    async def stop(self, harness: Harness) -> None:
        """Stop one bot process: close its client and its database connection."""
        for client, repository in list(self.opened):
            if client is harness.client:
                await client.close()
                await repository.close()
                self.opened.remove((client, repository))

    async def close(self) -> None:
        for client, repository in self.opened:
            await client.close()
            await repository.close()


@pytest.fixture
async def start_bot(
    fake: FakeDiscord, db_url: str, runner: LocalRunner, clock: FakeClock
) -> AsyncIterator[BotRunner]:
    bots = BotRunner(fake, db_url, runner, clock)
    yield bots
    await bots.close()


@pytest.fixture
async def bot(start_bot: BotRunner) -> Harness:
    return await start_bot.start()


def study_guild(fake: FakeDiscord, *, everyone: int = p.MEMBER_PERMISSIONS | p.EMBED_LINKS) -> dict[str, Any]:
    """The study server as Discord shows it to the bot: its channel, the @everyone role, the bot's own member.

    The bot asks for these (or reads them from a GUILD_CREATE handed to the client) before it takes
    a channel for the daily question; tests change the returned payload to take permissions away.
    """
    guild = fake.guilds.get(p.GUILD_ID) or fake.add_guild(p.GUILD_ID)
    guild["roles"] = [p.role(p.GUILD_ID, "@everyone", everyone)]
    guild["channels"] = [p.text_channel()]
    guild["members"] = [p.bot_member()]
    return guild


class DailyBot(NamedTuple):
    """A Discord client on the fake Discord over the daily-practice wiring (service, scheduler, posters)."""

    bot: Harness
    wired: Wired
    poster: DiscordPoster
    repository: SqlRepository


@pytest.fixture
async def daily_bot(
    fake: FakeDiscord, db_url: str, runner: LocalRunner, clock: FakeClock, tmp_path: Path
) -> AsyncIterator[DailyBot]:
    repository = await open_repository(db_url)
    wired = await wire(repository, clock, runner, tmp_path)
    study_guild(fake)
    settings = settings_for(fake, db_url)
    use_api(fake.api_url)
    client = create_client(App(settings=settings, repository=repository, service=wired.service, runner=runner), settings)
    await client.login(BOT_TOKEN)
    poster = DiscordPoster(client)
    await wired.posters.add("discord", poster)
    yield DailyBot(Harness(fake, client, wired.service), wired, poster, repository)
    await client.close()
    await repository.close()
