"""Benchmark: 200 members answer one race round within one second, through the Discord and Slack front ends.

Everything runs as in production except the platforms, which are the test suite's fake servers on
127.0.0.1: discord.py parses each INTERACTION_CREATE and answers through the fake Discord's HTTP
API; Slack's signed block_actions requests go over HTTP to the Bolt app, whose replies go to the
fake Slack. The database is a SQLite file (or `--url`). Per platform it prints:

- ack: Discord, the time from the gateway event to the interaction response (the private "your
  answer is in"); Slack, the time from sending the request to Bolt's HTTP 200;
- note (Slack): the time until the private note (`chat.postEphemeral`) reaches Slack;
- whether every answer was stored once, and in the order the answers reached the store.

    .venv/bin/python bench/race_platform_bench.py [--members 200] [--spread 1.0] [--only discord|slack] [--url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the fake platforms live in tests/

import aiohttp  # noqa: E402
from aiohttp import web  # noqa: E402
from aiohttp.test_utils import TestServer  # noqa: E402

from bench.race_bench import ArrivalStore, bench_pack  # noqa: E402
from bot.adapters.discord import create_client  # noqa: E402
from bot.adapters.discord.api import use_api  # noqa: E402
from bot.adapters.slack import slack_front_end, web_app  # noqa: E402
from bot.app import App  # noqa: E402
from bot.core import QuizService  # noqa: E402
from bot.core.ports import SystemClock  # noqa: E402
from bot.core.race import Outbox, RaceService, SocialService  # noqa: E402
from bot.storage import SqlRepository, open_repository  # noqa: E402
from tests.discord import payloads as p  # noqa: E402
from tests.discord.conftest import settings_for  # noqa: E402
from tests.discord.fake_discord import BOT_TOKEN as DISCORD_TOKEN  # noqa: E402
from tests.discord.fake_discord import Call, FakeDiscord  # noqa: E402
from tests.slack.conftest import BOT_TOKEN as SLACK_TOKEN  # noqa: E402
from tests.slack.conftest import CHANNEL, SIGNING_SECRET, TEAM, Slack, find_element  # noqa: E402
from tests.slack.fake_slack import FakeSlack  # noqa: E402


class TimedDiscord(FakeDiscord):
    """The fake Discord, noting when each interaction response arrives."""

    def __init__(self) -> None:
        super().__init__()
        self.answered: dict[str, float] = {}

    async def _callback(self, call: Call, iid: str, token: str) -> web.Response:
        self.answered.setdefault(iid, time.perf_counter())
        return await super()._callback(call, iid, token)


class TimedSlack(FakeSlack):
    """The fake Slack, noting when each member's private note arrives."""

    def __init__(self) -> None:
        super().__init__(bot_token=SLACK_TOKEN, team=TEAM)
        self.noted: dict[str, float] = {}

    def _m_chat_postEphemeral(self, args: dict[str, Any]) -> web.Response:
        self.noted.setdefault(str(args.get("user")), time.perf_counter())
        return super()._m_chat_postEphemeral(args)


def summary(name: str, seconds: Sequence[float]) -> str:
    ms = sorted(1000 * s for s in seconds)
    if not ms:
        return f"{name}: none"
    p99 = ms[max(0, int(len(ms) * 0.99) - 1)]
    return f"{name}: p50 {statistics.median(ms):.0f} ms  p99 {p99:.0f} ms  max {ms[-1]:.0f} ms  (n={len(ms)})"


async def services(repo: SqlRepository) -> tuple[QuizService, RaceService, ArrivalStore, Outbox]:
    clock = SystemClock()
    await QuizService(repository=repo, runner=None, clock=clock).import_pack(bench_pack(), force=True)
    store = ArrivalStore.beside(repo)
    store.arrivals = []
    outbox = Outbox()
    races = RaceService(repository=repo, store=store, clock=clock, publish=outbox, timers=False)
    social = SocialService(store=store, clock=clock)
    return QuizService(repository=repo, runner=None, clock=clock, races=races, social=social), races, store, outbox


async def check(store: ArrivalStore, races: RaceService, race_id: str, members: int) -> str:
    race = await store.get_race(race_id)
    assert race is not None
    by_seq = [a.user_id for a in race.round_answers(0)]
    once = len(by_seq) == len(set(by_seq)) == members
    await races.drain()
    return f"each answer stored once: {once}; numbered in arrival order: {by_seq == store.arrivals}"


async def discord_run(url: str, members: int, spread: float) -> None:
    fake = TimedDiscord()
    await fake.start()
    repo = await open_repository(url)
    service, races, store, outbox = await services(repo)
    settings = settings_for(fake, url)
    use_api(fake.api_url)
    client = create_client(App(settings, repo, service, None, outbox=outbox), settings)
    try:
        await client.login(DISCORD_TOKEN)
        host = p.User("590000000000000001", "Host")
        start = p.interaction(2, p.command("start", [p.option("pack", "bench"), p.option("rounds", 3), p.option("seconds", 60)], group="race"), host)
        fake.interactions[start["id"]] = start
        client._connection.parsers["INTERACTION_CREATE"](start)
        await asyncio.sleep(0.5)
        rounds = [m for m in fake.messages.values() if any("Race · round 1" in (e.get("title") or "") for e in m["embeds"])]
        round_message = rounds[-1]
        buttons = [c for row in round_message["components"] for c in row["components"] if c["custom_id"].endswith((":c:0", ":c:1"))]
        race_id = buttons[0]["custom_id"].split(":")[1]
        rng = random.Random(5)
        delays = sorted(rng.uniform(0, spread) for _ in range(members))
        sent: dict[str, float] = {}

        async def click(index: int) -> None:
            await asyncio.sleep(delays[index])
            user = p.User(str(600000000000000000 + index), f"m{index:03d}")
            payload = p.interaction(3, p.component(buttons[index % 2]["custom_id"], 2), user, message=round_message)
            fake.interactions[payload["id"]] = payload
            sent[payload["id"]] = time.perf_counter()
            client._connection.parsers["INTERACTION_CREATE"](payload)

        await asyncio.gather(*(click(i) for i in range(members)))
        deadline = time.perf_counter() + 60
        while len([i for i in sent if i in fake.answered]) < members and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        acks = [fake.answered[i] - t for i, t in sent.items() if i in fake.answered]
        print(f"Discord  members: {members}  clicks spread over {spread:g} s  database: {url.split(':')[0]}")
        print("  " + summary("ack (event to interaction response)", acks))
        print(f"  answered {len(acks)} of {members}; " + await check(store, races, race_id, members))
    finally:
        await races.aclose()
        await client.close()
        await repo.close()
        await fake.close()


def click_body(slack: Slack, message: dict[str, Any], ts: str, action_id: str, user: str) -> str:
    element, block_id = find_element(message["blocks"], action_id=action_id)
    action = {"action_id": action_id, "block_id": block_id, "type": "button", "text": element["text"], "action_ts": f"{time.time():.6f}"}
    payload = {
        "type": "block_actions",
        "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": TEAM},
        "api_app_id": "A0001",
        "token": "gIkuvaNzQIHg97ATvDxqgjtO",
        "container": {"type": "message", "message_ts": ts, "channel_id": CHANNEL, "is_ephemeral": False},
        "trigger_id": slack.trigger(),
        "team": {"id": TEAM, "domain": "quizbot-test"},
        "channel": {"id": CHANNEL, "name": "general"},
        "message": message,
        "state": {"values": {}},
        "response_url": slack.fake.response_url(),
        "actions": [action],
    }
    return urlencode({"payload": json.dumps(payload)})


async def slack_run(url: str, members: int, spread: float) -> None:
    fake = TimedSlack()
    await fake.start()
    repo = await open_repository(url)
    service, races, store, outbox = await services(repo)
    try:
        front_end = slack_front_end(service, token=SLACK_TOKEN, api_url=fake.api_url, signing_secret=SIGNING_SECRET, outbox=outbox)
        async with front_end as (front, bolt):
            server = TestServer(web_app(bolt), host="127.0.0.1")
            await server.start_server()
            try:
                async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
                    slack = Slack(http, str(server.make_url("/slack/events")), fake, front)
                    await slack.command("race bench 3 60", user="UHOST", channel=CHANNEL)
                    ts, message = next(
                        (ts, m) for (ch, ts), m in fake.messages.items() if ch == CHANNEL and "Race · round 1" in json.dumps(m["blocks"][:1], ensure_ascii=False)
                    )
                    actions = [e["action_id"] for b in message["blocks"] if b["type"] == "actions" for e in b["elements"] if ":c:" in e["action_id"]]
                    race_id = actions[0].split(":")[1]
                    rng = random.Random(5)
                    delays = sorted(rng.uniform(0, spread) for _ in range(members))
                    acks: list[float] = []
                    sent: dict[str, float] = {}

                    async def click(index: int) -> None:
                        await asyncio.sleep(delays[index])
                        user = f"U{index:06d}"
                        body = click_body(slack, message, ts, actions[index % 2], user)
                        began = sent[user] = time.perf_counter()
                        status, _ = await slack.send(body, "application/x-www-form-urlencoded", settle=False)
                        assert status == 200
                        acks.append(time.perf_counter() - began)

                    await asyncio.gather(*(click(i) for i in range(members)))
                    await front.idle()
                    notes = [fake.noted[u] - t for u, t in sent.items() if u in fake.noted]
                    print(f"Slack  members: {members}  clicks spread over {spread:g} s  database: {url.split(':')[0]}")
                    print("  " + summary("ack (request to Bolt's HTTP 200)", acks))
                    print("  " + summary("private note (request to chat.postEphemeral)", notes))
                    print("  " + await check(store, races, race_id, members))
            finally:
                await server.close()
    finally:
        await races.aclose()
        await repo.close()
        await fake.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--spread", type=float, default=1.0, help="send the clicks at random within this many seconds")
    parser.add_argument("--only", choices=("discord", "slack"), default=None)
    parser.add_argument("--url", default=None, help="database URL (default: a fresh SQLite file per platform)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    with tempfile.TemporaryDirectory() as folder:
        for name, run in (("discord", discord_run), ("slack", slack_run)):
            if args.only in (None, name):
                url = args.url or f"sqlite+aiosqlite:///{Path(folder) / f'{name}.db'}"
                asyncio.run(run(url, args.members, args.spread))


if __name__ == "__main__":
    main()
