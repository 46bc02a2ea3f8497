"""Two `quizbot slack` OS processes (HTTP mode) on one PostgreSQL database, against the fake Slack.

A load balancer in front of Slack HTTP mode may send any request to any process: a click on a
message another process posted works, and is recorded once.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg

from tests.ops.services import (
    BotProcess,
    bot_env,
    free_port,
    sample,
    slack_bot,
    wait_http,
    write_choice_pack,
)
from tests.slack.conftest import BOT_TOKEN, LEARNER, SIGNING_SECRET, Slack, block_text, dm
from tests.slack.fake_slack import FakeSlack
from tests.slack.helpers import is_item


def slack_env(pg_url: str, packs: Path, fake: FakeSlack) -> dict[str, str]:
    return bot_env(pg_url, packs, SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SIGNING_SECRET, SLACK_API_URL=fake.api_url)


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


TRIGGERS = itertools.count(1)


class Workspace(Slack):
    """The fake Slack's side of one bot process: it keeps every interaction payload it sent, to resend one."""

    sent: list[dict[str, Any]]

    async def interact(self, payload: dict[str, Any], **kwargs: Any) -> tuple[int, str]:
        self.sent = [*getattr(self, "sent", []), payload]
        return await super().interact(payload, **kwargs)

    def trigger(self) -> str:  # unique across workspaces: a process must not take another's for a repeat
        return f"{next(TRIGGERS)}.98765.abcdef"

    def click_sent(self, action_ts: str) -> dict[str, Any]:
        return next(p for p in self.sent if p["actions"][0]["action_ts"] == action_ts)


def moved_on(fake: FakeSlack, channel: str, count: int) -> list[dict[str, Any]] | None:
    """The item messages once there are `count` and the one before the last is answered (else None)."""
    items = item_messages(fake, channel)
    return items if len(items) == count and answered(items[-2]) else None


async def two_bots(tmp_path: Path, pg_url: str, fake: FakeSlack, processes: list[BotProcess]) -> list[tuple[BotProcess, int]]:
    """Two bot processes (and their HTTP ports) on one database with a three-question pack, ready."""
    env = slack_env(pg_url, write_choice_pack(tmp_path, 3), fake)
    bots = [slack_bot(name, tmp_path, env) for name in ("a", "b")]
    processes.extend(bot for bot, _ in bots)
    await asyncio.gather(*(asyncio.to_thread(wait_http, bot, f"http://127.0.0.1:{port}/healthz") for bot, port in bots))
    return bots


async def item_number(fake: FakeSlack, channel: str, n: int) -> dict[str, Any]:
    """The quiz's item message `n` (from 0) once it is the last one posted."""
    items = await fake.wait_for(lambda: len(item_messages(fake, channel)) == n + 1 and item_messages(fake, channel), 30)
    return dict(items[-1])


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
        answered_by = [sample(await get_text(answers(n)), "quizbot_answers_total", platform="slack", outcome="correct") for n in (0, 1)]
        assert answered_by == [0.0, 1.0]

        # the next click goes to A again: A reads the quiz as B left it
        status, _ = await a.click(channel, items[1]["ts"], label="A")
        assert status == 200
        items = await fake.wait_for(lambda: moved_on(fake, channel, 3), 30)
        assert "Correct" in block_text(items[1]["blocks"]) and "Question 3 of 3" in block_text(items[2]["blocks"])
        answered_by = [sample(await get_text(answers(n)), "quizbot_answers_total", platform="slack", outcome="correct") for n in (0, 1)]
        assert answered_by == [1.0, 1.0]

        # Slack resends a click it got no ack for, here to the other process: it is not recorded again,
        # and its one grade is shown once: put in place again (it reads the same), nothing else said
        graded_before = block_text(fake.message(channel, items[0]["ts"])["blocks"])
        status, _ = await a.interact(b.sent[0])
        assert status == 200
        status, _ = await a.click(channel, items[2]["ts"], label="A")  # a request after it, through the same process
        assert status == 200
        items = await fake.wait_for(lambda: answered(item_messages(fake, channel)[2]) and item_messages(fake, channel), 30)
        assert block_text(fake.message(channel, items[0]["ts"])["blocks"]) == graded_before
        assert len(items) == 3  # the next item was not posted again
        told = [e["text"] for e in fake.ephemerals if e["user"] == LEARNER]
        assert not any("already answered" in t for t in told), told
    stored = await attempts(pg_url)
    assert [r["correct"] for r in stored] == [True, True, True]
    assert len({r["question_id"] for r in stored}) == 3 and len({r["key"] for r in stored}) == 3
    assert len({r["session_id"] for r in stored}) == 1
    for bot, _ in bots:
        assert bot.stop() == 0, bot.log()
        assert BOT_TOKEN not in bot.log() and SIGNING_SECRET not in bot.log()
        json.loads(bot.log().splitlines()[0])  # JSON lines
    assert fake.errors == []


async def test_one_click_delivered_to_both_processes_at_once_is_shown_and_recorded_once(
    tmp_path: Path, pg_url: str, fake: FakeSlack, processes: list[BotProcess]
) -> None:
    bots = await two_bots(tmp_path, pg_url, fake, processes)
    channel = dm(LEARNER)
    async with aiohttp.ClientSession() as http:
        a, b = (Workspace(http, f"http://127.0.0.1:{port}/slack/events", fake, None) for _, port in bots)
        assert (await a.command("start ops count:3"))[0] == 200
        for n in range(2):  # twice: whichever process stores the click first, the other only puts the grade in place
            item = await item_number(fake, channel, n)
            sent = len(getattr(a, "sent", []))
            first = asyncio.create_task(a.click(channel, item["ts"], label="A"))
            while len(getattr(a, "sent", [])) == sent:
                await asyncio.sleep(0)
            again = a.sent[-1]
            # the same body, to B, while A handles it (a retry of an ack thought late); and to A once more
            # with another trigger id (past A's own guard against repeats)
            statuses = await asyncio.gather(first, b.interact(again), a.interact({**again, "trigger_id": a.trigger()}))
            assert [status for status, _ in statuses] == [200, 200, 200]
            await fake.wait_for(lambda n=n: moved_on(fake, channel, n + 2), 30)
    items = item_messages(fake, channel)
    assert len(items) == 3 and all("Correct" in block_text(m["blocks"]) for m in items[:2])  # each next item posted once
    told = [e["text"] for e in fake.ephemerals if e["user"] == LEARNER]
    assert not any("already answered" in t for t in told), told
    stored = await attempts(pg_url)
    assert sorted(r["question_id"] for r in stored) == sorted(question_of(m) for m in items[:2])
    assert len(stored) == 2 and len({r["key"] for r in stored}) == 2
    for bot, _ in bots:
        assert bot.stop() == 0, bot.log()


LEARNERS = [f"U{n}KILLTEST" for n in range(6)]
QUESTION = re.compile(r"Question number (\d+) - ")


@dataclass
class Clicks:
    acked: list[tuple[str, str, int]] = field(default_factory=list)  # (learner, question id, process that acked: 0 A, 1 B)
    resent: int = 0  # clicks that got no ack and were sent again to the survivor
    stranded: list[str] = field(default_factory=list)  # learners whose next item never came (its process died)


def open_item(fake: FakeSlack, channel: str) -> dict[str, Any] | None:
    """The learner's current question: the newest item message that still has its buttons."""
    items = item_messages(fake, channel)
    return items[-1] if items and not answered(items[-1]) else None


def question_of(message: dict[str, Any]) -> str:
    found = QUESTION.search(block_text(message["blocks"]))
    assert found, block_text(message["blocks"])
    return f"q{int(found.group(1)):02d}"


async def test_killing_one_process_loses_no_acknowledged_answer(
    tmp_path: Path, pg_url: str, fake: FakeSlack, processes: list[BotProcess]
) -> None:
    env = slack_env(pg_url, write_choice_pack(tmp_path, 50), fake)
    bots = [slack_bot(name, tmp_path, env) for name in ("a", "b")]
    processes.extend(bot for bot, _ in bots)
    await asyncio.gather(*(asyncio.to_thread(wait_http, bot, f"http://127.0.0.1:{port}/healthz") for bot, port in bots))
    rng = random.Random(15)
    alive = [0, 1]
    clicks = Clicks()
    killed = asyncio.Event()
    stamps = itertools.count(1)

    async with aiohttp.ClientSession() as http:
        to = [Workspace(http, f"http://127.0.0.1:{port}/slack/events", fake, None) for _, port in bots]
        for n, user in enumerate(LEARNERS):  # the quizzes start on either process
            assert (await to[n % 2].command("start ops count:50", user=user))[0] == 200
        await fake.wait_for(lambda: all(open_item(fake, dm(u)) for u in LEARNERS), 30)
        ends = time.monotonic() + 10

        async def learner(user: str) -> None:
            channel = dm(user)
            while time.monotonic() < ends and (item := open_item(fake, channel)) is not None:
                target = rng.choice(alive)
                stamp = f"1700000300.{next(stamps):06d}"  # Slack's action_ts: this click's own
                try:
                    status, _ = await to[target].click(channel, item["ts"], label="A", user=user, action_ts=stamp)
                except aiohttp.ClientError:  # the process died with the request
                    status = 0
                resent = False
                while status != 200:  # no ack: Slack sends the same request again; the balancer picks B
                    assert killed.is_set() and target == 0, f"a click to a running process failed: {status}"
                    clicks.resent += 1
                    resent, target = True, 1
                    status, _ = await to[1].interact(to[0].click_sent(stamp))
                clicks.acked.append((user, question_of(item), target))

                def shown(ts: str = item["ts"]) -> bool:  # the feedback in the item, and the next question (or the end)
                    last = block_text(fake.posts(channel)[-1]["blocks"])
                    return answered(fake.message(channel, ts)) and (open_item(fake, channel) is not None or "Quiz finished" in last)

                try:
                    await fake.wait_for(shown, 5)
                except TimeoutError:
                    # A died after storing the answer, before showing what comes next (B, sent the click
                    # again, finds it answered): the learner would ask for the current question.
                    assert killed.is_set() and (target == 0 or resent), f"process {target} never answered {user}'s click"
                    clicks.stranded.append(user)
                    return

        async def killer() -> None:
            while sum(1 for *_, p in clicks.acked if p == 0) < 20:
                await asyncio.sleep(0.01)
            alive.remove(0)
            killed.set()
            await asyncio.to_thread(processes[0].kill)  # SIGKILL: nothing of A's work in flight finishes

        kill = asyncio.create_task(killer())
        await asyncio.gather(*(learner(user) for user in LEARNERS))
        assert kill.done(), "the learners were done before A was killed"
        await kill
    assert processes[1].stop() == 0, processes[1].log()  # SIGTERM: B finishes its work in flight first

    stored = await attempts(pg_url)
    acked = sorted((user, question) for user, question, _ in clicks.acked)
    recorded = sorted((r["user_id"], r["question_id"]) for r in stored)
    lost = [c for c in clicks.acked if c[:2] not in recorded]
    assert not lost, f"acknowledged, never stored (learner, question, process that acked): {lost}"
    assert recorded == acked  # each acknowledged click exactly once, and nothing that was not acknowledged
    assert len({r["key"] for r in stored}) == len(stored) and None not in {r["key"] for r in stored}
    after = sum(1 for *_, p in clicks.acked if p == 1)
    assert after > 20, f"B acknowledged only {after} clicks"  # the learners went on, on the survivor
    print(f"acked {len(acked)} clicks (A {len(acked) - after}, B {after}); resent {clicks.resent}; stranded {clicks.stranded}")


async def test_two_quick_clicks_on_one_item_sent_to_two_processes_post_the_next_item_once(
    tmp_path: Path, pg_url: str, fake: FakeSlack, processes: list[BotProcess]
) -> None:
    bots = await two_bots(tmp_path, pg_url, fake, processes)
    channel = dm(LEARNER)
    async with aiohttp.ClientSession() as http:
        a, b = (Workspace(http, f"http://127.0.0.1:{port}/slack/events", fake, None) for _, port in bots)
        assert (await a.command("start ops count:3"))[0] == 200
        for n in range(2):  # the learner clicks two options of one item at once; each click reaches another process
            item = await item_number(fake, channel, n)
            statuses = await asyncio.gather(a.click(channel, item["ts"], label="A"), b.click(channel, item["ts"], label="B"))
            assert [status for status, _ in statuses] == [200, 200]
            await fake.wait_for(lambda n=n: len(item_messages(fake, channel)) >= n + 2, 30)
            await asyncio.sleep(1.0)  # time for a second next item, were one on its way
            items = item_messages(fake, channel)
            assert len(items) == n + 2, [block_text(m["blocks"])[:40] for m in items]  # the next item posted once
            assert answered(items[n]) and not answered(items[n + 1])
    told = [e["text"] for e in fake.ephemerals if e["user"] == LEARNER]
    assert not any("already answered" in t for t in told), told
    stored = await attempts(pg_url)
    assert len(stored) == 2 and len({r["question_id"] for r in stored}) == 2  # one answer per item
    for bot, _ in bots:
        assert bot.stop() == 0, bot.log()
