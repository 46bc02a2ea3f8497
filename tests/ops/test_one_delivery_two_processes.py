"""One Slack delivery graded by two `quizbot slack` OS processes on PostgreSQL (a retry reached the other one).

Slack sends an event again when its 200 came late; behind a load balancer the retry reaches the
other process, which grades the same code while the first still does (the first holds the item's
unfinished-work row; the second grades untracked). One answer is stored and shown once: neither
process says "This grade came after you were told the bot restarted", nor that the question was
already answered or the quiz finished. When the first process is killed mid-grade, the second's
stored answer settles the killed process's row: the learner is never told to send again an answer
that counted. Each process runs its own sandbox pool (a shared sandbox service runs one job per
learner at a time, and would refuse the second).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg

from tests.conftest import DEMO_PACK
from tests.ops.services import BotProcess, bot_env, free_port, sample, slack_bot, uid_base, wait_http
from tests.ops.test_shutdown import until
from tests.slack.conftest import BOT_TOKEN, LEARNER, SIGNING_SECRET, TEAM, Slack, block_text, dm
from tests.slack.fake_slack import FakeSlack

CODE = "```python\nimport time\ntime.sleep(2)\ntotal = sum(range(1, 11))\nprint(total)\n```"
FALSE_NOTES = ("came after you were told the bot restarted", "The bot restarted", "already answered", "has finished")
STAMPS = itertools.count(1)


class Pair:
    """Two bot processes on one database and one sandbox service, each with its metrics port."""

    def __init__(self, tmp_path: Path, pg_url: str, fake: FakeSlack, processes: list[BotProcess]) -> None:
        self.pg_url = pg_url
        self.metrics = [free_port(), free_port()]
        env = bot_env(pg_url, DEMO_PACK, SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SIGNING_SECRET, SLACK_API_URL=fake.api_url)
        del env["QUIZBOT_SANDBOX_URLS"], env["QUIZBOT_SANDBOX_TOKEN"]  # a local pool in each process
        env |= {"QUIZBOT_SANDBOX_WORKERS": "1", "QUIZBOT_SANDBOX_MEMORY_MB": "256", "QUIZBOT_SANDBOX_WARM_OPTIMIZERS": "false"}
        self.bots: list[tuple[BotProcess, int]] = []
        for name, port in zip(("a", "b"), self.metrics, strict=True):
            own = {"QUIZBOT_METRICS_PORT": str(port), "QUIZBOT_METRICS_HOST": "127.0.0.1", "QUIZBOT_SANDBOX_UID_BASE": str(uid_base(port))}
            bot, slack_port = slack_bot(name, tmp_path, env | own)
            processes.append(bot)
            self.bots.append((bot, slack_port))

    async def ready(self) -> None:
        """Wait until both serve, their database and sandbox pool ready."""
        await asyncio.gather(*(asyncio.to_thread(wait_http, bot, f"http://127.0.0.1:{port}/readyz", 180) for (bot, _), port in zip(self.bots, self.metrics, strict=True)))

    async def submits(self, n: int) -> float:
        return sample(await self.scrape(n), "quizbot_requests_total", platform="slack", request="Submit")

    async def scrape(self, n: int) -> str:
        async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{self.metrics[n]}/metrics") as response:
            return await response.text()

    async def rows(self, query: str) -> list[asyncpg.Record]:
        db = await asyncpg.connect(self.pg_url.replace("postgresql+asyncpg://", "postgresql://"))
        try:
            return list(await db.fetch(query))
        finally:
            await db.close()


@asynccontextmanager
async def pair(tmp_path: Path, pg_url: str, fake: FakeSlack, processes: list[BotProcess]) -> AsyncIterator[tuple[Pair, list[Slack]]]:
    bots = Pair(tmp_path, pg_url, fake, processes)
    await bots.ready()
    async with aiohttp.ClientSession() as http:
        yield bots, [Slack(http, f"http://127.0.0.1:{port}/slack/events", fake, None) for _, port in bots.bots]


def code_event() -> str:
    """A code message in the learner's DM as one Events API body: the same bytes are what Slack resends."""
    n = next(STAMPS)
    event = {
        "type": "message", "channel": dm(LEARNER), "user": LEARNER, "text": CODE, "ts": f"1700000400.{n:06d}",
        "event_ts": f"1700000400.{n:06d}", "channel_type": "im", "team": TEAM,
    }  # fmt: skip
    body = {
        "token": "gIkuvaNzQIHg97ATvDxqgjtO", "team_id": TEAM, "api_app_id": "A0001", "event": event,
        "type": "event_callback", "event_id": f"EvCODE{n:06d}", "event_time": int(time.time()),
    }  # fmt: skip
    return json.dumps(body)


def everything_told(fake: FakeSlack) -> list[str]:
    shown: list[dict[str, Any]] = [*fake.messages.values(), *fake.ephemerals, *fake.responses]
    return [block_text(m.get("blocks") or []) + "\n" + str(m.get("text", "")) for m in shown]


def graded_shown(fake: FakeSlack) -> int:
    return sum("Correct" in text for text in everything_told(fake))


def false_notes(fake: FakeSlack) -> list[str]:
    return [text for text in everything_told(fake) if any(note in text for note in FALSE_NOTES)]


async def start_code_quiz(slack: Slack, fake: FakeSlack, bots: Pair) -> None:
    assert (await slack.command("start demo difficulty:hard count:1"))[0] == 200
    await fake.wait_for(lambda: fake.posts(dm(LEARNER)), 30)

    async def item_remembered() -> bool:  # the item's message is stored a moment after it is posted (storage/anchors.py)
        return any('"message"' in row["data"] for row in await bots.rows("SELECT data FROM sessions"))

    await until(item_remembered, "the item's message to be stored", 30)


async def test_a_code_message_graded_by_both_processes_is_stored_and_shown_once(
    tmp_path: Path, pg_url: str, fake: FakeSlack, processes: list[BotProcess]
) -> None:
    async with pair(tmp_path, pg_url, fake, processes) as (bots, (a, b)):
        await start_code_quiz(a, fake, bots)
        # what each process ran before (the proof of the packs at start), left out of the count below
        before = [sample(await bots.scrape(n), "quizbot_sandbox_jobs_total", status="passed") for n in (0, 1)]
        body = code_event()
        sent = await asyncio.gather(a.send(body, "application/json"), b.send(body, "application/json"))
        assert [status for status, _ in sent] == [200, 200]

        async def both_handled() -> bool:
            return await bots.submits(0) >= 1 and await bots.submits(1) >= 1

        await until(both_handled, "both processes to finish the delivery", 120)
        graded = [sample(await bots.scrape(n), "quizbot_sandbox_jobs_total", status="passed") - before[n] for n in (0, 1)]
        assert graded == [1.0, 1.0]  # each process graded the delivery
        await fake.wait_for(lambda: graded_shown(fake) >= 1, 30)
        for slack in (a, b):  # a request to each after both: anything either still had to say comes before its reply
            shown = len(everything_told(fake))
            assert (await slack.command("stats"))[0] == 200
            await fake.wait_for(lambda shown=shown: len(everything_told(fake)) > shown, 30)
        stored = await bots.rows("SELECT key, correct FROM attempts")
        assert [(r["key"], r["correct"]) for r in stored] == [(f"{LEARNER}:{json.loads(body)['event']['ts']}", True)]
        assert await bots.rows("SELECT id FROM unfinished_work") == []
    assert graded_shown(fake) == 1, everything_told(fake)
    assert false_notes(fake) == [], false_notes(fake)
    for bot, _ in bots.bots:
        assert bot.stop() == 0, bot.log()


async def test_the_process_that_stored_a_delivery_settles_the_row_of_one_killed_while_grading_it(
    tmp_path: Path, pg_url: str, fake: FakeSlack, processes: list[BotProcess]
) -> None:
    async with pair(tmp_path, pg_url, fake, processes) as (bots, (a, b)):
        await start_code_quiz(a, fake, bots)
        body = code_event()
        assert (await a.send(body, "application/json"))[0] == 200  # acknowledged: A's row is stored

        assert [r["process"] for r in await bots.rows("SELECT process FROM unfinished_work")] != []
        retry = asyncio.create_task(b.send(body, "application/json"))  # Slack's retry, to B, while A grades
        processes[0].kill()  # A dies mid-grade: its row stays, unmarked
        assert (await retry)[0] == 200
        await fake.wait_for(lambda: graded_shown(fake) >= 1, 60)
        assert len(await bots.rows("SELECT id FROM attempts")) == 1
        # A's deadline, were its row still there, passes: the learner's next request would be told "send it again"
        await bots.rows("UPDATE unfinished_work SET deadline = now() - interval '1 day'")
        await asyncio.sleep(2.5)  # B lists overdue rows once per 2 s (bot.storage.work.POLL_S)
        shown = len(everything_told(fake))
        assert (await b.command("stats"))[0] == 200
        await fake.wait_for(lambda: len(everything_told(fake)) > shown, 30)
        assert await bots.rows("SELECT id FROM unfinished_work") == []  # B's answer settled A's row with it
    assert graded_shown(fake) == 1, everything_told(fake)
    assert false_notes(fake) == [], false_notes(fake)
