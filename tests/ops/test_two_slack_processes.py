"""Two `quizbot slack` OS processes (HTTP mode) on one PostgreSQL database, against the fake Slack.

A load balancer in front of Slack HTTP mode may send any request to any process: a click on a
message another process posted works, and is recorded once.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg

from tests.ops.services import (
    BotProcess,
    bot_env,
    free_port,
    metric_of,
    slack_bot,
    wait_http,
    write_choice_pack,
)
from tests.slack.conftest import BOT_TOKEN, LEARNER, SIGNING_SECRET, Slack, block_text, dm
from tests.slack.fake_slack import FakeSlack
from tests.slack.helpers import is_item


def slack_env(pg_url: str, packs: Path, fake: FakeSlack) -> dict[str, str]:
    return bot_env(pg_url, packs, SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SIGNING_SECRET, SLACK_API_URL=fake.api_url)


async def start_slack_bots(names: list[str], tmp_path: Path, env: dict[str, str], processes: list[BotProcess]) -> list[int]:
    """Start the processes at once (on a fresh database: both migrate and import packs), wait until they serve."""
    ports = []
    for name in names:
        bot, port = slack_bot(name, tmp_path, env)
        processes.append(bot)
        ports.append(port)
    await asyncio.gather(
        *(asyncio.to_thread(wait_http, bot, f"http://127.0.0.1:{port}/healthz") for bot, port in zip(processes[-len(names):], ports, strict=True))
    )
    return ports


async def get_text(url: str) -> str:
    async with aiohttp.ClientSession() as http, http.get(url) as response:
        return await response.text()


async def attempts(pg_url: str) -> list[asyncpg.Record]:
    db = await asyncpg.connect(pg_url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        return list(await db.fetch("SELECT user_id, question_id, key, session_id, correct FROM attempts ORDER BY id"))
    finally:
        await db.close()


def item_messages(fake: FakeSlack, channel: str) -> list[dict[str, Any]]:
    return [m for m in fake.posts(channel) if is_item(m)]


def answered(message: dict[str, Any]) -> bool:
    return not any(b["type"] == "actions" for b in message["blocks"])


class Workspace(Slack):
    """The fake Slack's side of one bot process: it keeps every interaction payload it sent, to resend one."""

    sent: list[dict[str, Any]]

    async def interact(self, payload: dict[str, Any], **kwargs: Any) -> tuple[int, str]:
        self.sent = [*getattr(self, "sent", []), payload]
        return await super().interact(payload, **kwargs)


def moved_on(fake: FakeSlack, channel: str, count: int) -> list[dict[str, Any]] | None:
    """The item messages once there are `count` and the one before the last is answered (else None)."""
    items = item_messages(fake, channel)
    return items if len(items) == count and answered(items[-2]) else None


async def test_a_click_on_a_message_posted_by_another_process(
    tmp_path: Path, pg_url: str, fake: FakeSlack, processes: list[BotProcess]
) -> None:
    env = slack_env(pg_url, write_choice_pack(tmp_path, 10), fake)
    metric_ports = [free_port(), free_port()]
    bots = []
    for name, metric_port in zip(("a", "b"), metric_ports, strict=True):
        bot, port = slack_bot(name, tmp_path, env | {"QUIZBOT_METRICS_PORT": str(metric_port), "QUIZBOT_METRICS_HOST": "127.0.0.1"})
        processes.append(bot)
        bots.append((bot, port))
    await asyncio.gather(*(asyncio.to_thread(wait_http, bot, f"http://127.0.0.1:{port}/healthz") for bot, port in bots))
    channel = dm(LEARNER)

    def answers(n: int) -> str:
        return f"http://127.0.0.1:{metric_ports[n]}/metrics"

    async with aiohttp.ClientSession() as http:
        a = Workspace(http, f"http://127.0.0.1:{bots[0][1]}/slack/events", fake, None)
        b = Workspace(http, f"http://127.0.0.1:{bots[1][1]}/slack/events", fake, None)
        assert (await a.command("start ops count:3"))[0] == 200
        first = (await fake.wait_for(lambda: item_messages(fake, channel), 30))[0]

        # the click on A's message goes to B: B grades it, edits A's message, posts the next item
        status, _ = await b.click(channel, first["ts"], label="A")
        assert status == 200
        items = await fake.wait_for(lambda: moved_on(fake, channel, 2), 30)
        assert "Correct" in block_text(items[0]["blocks"]), block_text(items[0]["blocks"])
        assert "Question 2 of 3" in block_text(items[1]["blocks"])
        stored = await attempts(pg_url)
        assert [(r["user_id"], r["correct"]) for r in stored] == [(LEARNER, True)]
        answered_by = [metric_of(await get_text(answers(n)), "quizbot_answers_total", '{outcome="correct",platform="slack"}') for n in (0, 1)]
        assert answered_by == [0.0, 1.0]

        # the next click goes to A again: A reads the quiz as B left it
        status, _ = await a.click(channel, items[1]["ts"], label="A")
        assert status == 200
        items = await fake.wait_for(lambda: moved_on(fake, channel, 3), 30)
        assert "Correct" in block_text(items[1]["blocks"]) and "Question 3 of 3" in block_text(items[2]["blocks"])
        answered_by = [metric_of(await get_text(answers(n)), "quizbot_answers_total", '{outcome="correct",platform="slack"}') for n in (0, 1)]
        assert answered_by == [1.0, 1.0]

        # Slack resends a click it got no ack for, here to the other process: it is not recorded again
        status, _ = await a.interact(b.sent[0])
        assert status == 200
        await b.click(channel, items[2]["ts"], label="B")  # the last one, wrong, through B
        await fake.wait_for(lambda: answered(item_messages(fake, channel)[2]), 30)
    stored = await attempts(pg_url)
    assert [r["correct"] for r in stored] == [True, True, False]
    assert len({r["question_id"] for r in stored}) == 3 and len({r["key"] for r in stored}) == 3
    assert len({r["session_id"] for r in stored}) == 1
    for bot, _ in bots:
        assert bot.stop() == 0, bot.log()
        assert BOT_TOKEN not in bot.log() and SIGNING_SECRET not in bot.log()
        json.loads(bot.log().splitlines()[0])  # JSON lines
    assert fake.errors == []
