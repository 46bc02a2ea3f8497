"""Two `quizbot discord` OS processes on one PostgreSQL database, against the fake Discord gateway.

Sharding: with DISCORD_SHARD_COUNT=2 each process runs one shard (DISCORD_SHARDS=0, =1); the gateway
gives each connection its own guilds and routes a guild's interactions to its shard, so a `/quiz
start` in a guild is answered by the process of that guild's shard. A restart: a quiz posted by a
process that is then stopped is answered by the next process on the same database.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg

from tests.discord import payloads as p
from tests.discord.conftest import find_component
from tests.discord.fake_discord import BOT_TOKEN, Call, FakeDiscord, shard_for
from tests.ops.services import BotProcess, bot_env, free_port, sample, wait_http, write_choice_pack

GUILDS = {0: "810000000000000001", 1: p.GUILD_ID}  # (id >> 22) % 2: the shard each guild belongs to
CHANNELS = {0: "811000000000000001", 1: p.CHANNEL_ID}


def discord_env(pg_url: str, packs: Path, fake: FakeDiscord, **extra: str) -> dict[str, str]:
    return bot_env(pg_url, packs, DISCORD_TOKEN=BOT_TOKEN, DISCORD_API_URL=fake.api_url, **extra)


def discord_bot(name: str, folder: Path, env: dict[str, str]) -> tuple[BotProcess, int]:
    """Start `quizbot discord` with a metrics port of its own; return it and that port."""
    metrics = free_port()
    bot = BotProcess(name, ["discord"], env | {"QUIZBOT_METRICS_PORT": str(metrics), "QUIZBOT_METRICS_HOST": "127.0.0.1"}, folder)
    return bot, metrics


async def until(check: Callable[[], Any], what: str, bots: list[BotProcess], timeout: float = 60.0) -> Any:
    async def loop() -> Any:
        while not (result := check()):
            for bot in bots:
                bot.check_alive()
            await asyncio.sleep(0.05)
        return result

    try:
        return await asyncio.wait_for(loop(), timeout)
    except TimeoutError:
        logs = "\n".join(f"--- {b.name}\n{b.log()[-4000:]}" for b in bots)
        raise AssertionError(f"timed out waiting for {what}\n{logs}") from None


def in_guild(payload: dict[str, Any], shard: int) -> dict[str, Any]:
    """Move an interaction payload (made in payloads.GUILD_ID) to the guild of `shard`."""
    guild, channel = GUILDS[shard], CHANNELS[shard]
    payload.update(guild_id=guild, channel_id=channel, authorizing_integration_owners={"0": guild})
    payload["channel"] = {**payload["channel"], "id": channel, "guild_id": guild}
    return payload


def answered_with(fake: FakeDiscord, iid: str) -> list[Call]:
    """The calls that answer interaction `iid`: its callback, and follow-ups on its token."""
    token = fake.interactions[iid]["token"]
    return [c for c in fake.calls if f"/{iid}/" in c.path or f"/{token}" in c.path]


def questions(fake: FakeDiscord, channel: str) -> list[dict[str, Any]]:
    return [
        m for m in fake.messages.values()
        if m["channel_id"] == channel and any((e.get("title") or "").startswith("Question") for e in m["embeds"])
    ]


async def metrics_of(port: int) -> str:
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}/metrics") as response:
        return await response.text()


async def starts(port: int) -> float:
    return sample(await metrics_of(port), "quizbot_requests_total", platform="discord", request="Start", outcome="ok")


async def test_two_shard_processes_each_answer_their_own_guilds(
    tmp_path: Path, pg_url: str, fake_discord: FakeDiscord, processes: list[BotProcess]
) -> None:
    fake = fake_discord
    assert [shard_for(GUILDS[n], 2) for n in (0, 1)] == [0, 1]
    for n in (0, 1):
        fake.add_guild(GUILDS[n], f"Server {n}")
    env = discord_env(pg_url, write_choice_pack(tmp_path, 5), fake, DISCORD_SHARD_COUNT="2")
    bots = [discord_bot(f"shard{n}", tmp_path, env | {"DISCORD_SHARDS": str(n)}) for n in (0, 1)]
    processes.extend(bot for bot, _ in bots)
    await until(lambda: len(fake.shard_of) == 2, "both processes to identify", processes)
    assert sorted(tuple(i["shard"]) for i in fake.identify) == [(0, 2), (1, 2)]
    await asyncio.gather(*(asyncio.to_thread(wait_http, bot, f"http://127.0.0.1:{port}/healthz") for bot, port in bots))

    assert sorted(fake.announced) == [(0, GUILDS[0]), (1, GUILDS[1])]  # each connection was told of its own guild

    expected = [0.0, 0.0]
    for shard, user in ((0, p.ALICE), (1, p.BOB)):
        payload = in_guild(p.interaction(2, p.command("start", [p.option("pack", "ops")]), user), shard)
        fake.interactions[payload["id"]] = payload
        assert await fake.dispatch("INTERACTION_CREATE", payload) == 1  # to the connection of the guild's shard only
        assert fake.delivered[-1] == (shard, "INTERACTION_CREATE", payload["id"])
        await until(lambda ch=CHANNELS[shard]: questions(fake, ch), f"the quiz in guild {shard}", processes)
        assert len(fake.callbacks(payload["id"])) == 1
        expected[shard] = 1.0
        assert [await starts(port) for _, port in bots] == expected  # started by the process of the guild's shard
    for bot, _ in bots:
        assert bot.stop() == 0, bot.log()
        assert BOT_TOKEN not in bot.log() and '"level": "ERROR"' not in bot.log(), bot.log()


async def test_a_click_on_a_quiz_posted_by_a_stopped_process(
    tmp_path: Path, pg_url: str, fake_discord: FakeDiscord, processes: list[BotProcess]
) -> None:
    fake = fake_discord
    env = discord_env(pg_url, write_choice_pack(tmp_path, 5), fake)
    first, first_metrics = discord_bot("first", tmp_path, env)
    processes.append(first)
    await until(lambda: len(fake.identify) == 1, "the first process to identify", processes)
    await asyncio.to_thread(wait_http, first, f"http://127.0.0.1:{first_metrics}/healthz")
    start = p.interaction(2, p.command("start", [p.option("pack", "ops"), p.option("count", 2)]), p.ALICE)
    fake.interactions[start["id"]] = start
    await fake.dispatch("INTERACTION_CREATE", start)
    (item,) = await until(lambda: questions(fake, p.CHANNEL_ID), "the first question", processes)
    shown = copy.deepcopy(item)  # what the learner's client shows
    assert first.stop() == 0, first.log()  # SIGTERM: the first process goes away

    second, second_metrics = discord_bot("second", tmp_path, env)
    processes.append(second)
    await until(lambda: len(fake.identify) == 2, "the second process to identify", [second])
    await asyncio.to_thread(wait_http, second, f"http://127.0.0.1:{second_metrics}/healthz")
    button = find_component(shown, "A")
    click = p.interaction(3, p.component(button["custom_id"], button["type"]), p.ALICE, message=shown)
    fake.interactions[click["id"]] = click
    await fake.dispatch("INTERACTION_CREATE", click)
    await until(lambda: len(questions(fake, p.CHANNEL_ID)) == 2, "the second question", [second])
    (callback,) = fake.callbacks(click["id"])
    assert callback.body["type"] == 7  # the item message itself is edited with the feedback
    feedback = "\n".join(e.get("description") or "" for e in callback.body["data"]["embeds"])
    feedback += "\n".join(f["value"] for e in callback.body["data"]["embeds"] for f in e.get("fields") or [])
    assert "Correct" in feedback, callback.body
    assert all(c.get("disabled") for row in callback.body["data"]["components"] for c in row["components"])
    assert questions(fake, p.CHANNEL_ID)[1]["embeds"][0]["title"] == "Question 2 of 2"
    db = await asyncpg.connect(pg_url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        rows = await db.fetch("SELECT user_id, correct, key FROM attempts")
    finally:
        await db.close()
    assert [(r["user_id"], r["correct"]) for r in rows] == [(p.ALICE.id, True)]
    assert sample(await metrics_of(second_metrics), "quizbot_answers_total", platform="discord", outcome="correct") == 1
    assert second.stop() == 0, second.log()
    for bot in (first, second):
        assert BOT_TOKEN not in bot.log() and '"level": "ERROR"' not in bot.log(), bot.log()
