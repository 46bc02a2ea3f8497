"""Benchmark: simulated learners answering quizzes over the fake Slack and the fake Discord, against real bot processes.

Each configuration (platform x one or two `quizbot run` processes x sandbox local or as a service x
database) gets a fresh database, PostgreSQL on 127.0.0.1:5432 or a SQLite file (made here, dropped
afterwards), and fresh bot processes started as an operator would (`quizbot run`, pointed at the fake platforms with
SLACK_API_URL / DISCORD_API_URL). The fake servers (the tests' own, subclassed here to time and
route) and the learners run in this process; its CPU use is printed, to show whether it bounded
the figures.

- Slack learners send signed HTTP requests to the bots' /slack/events: `/quiz start bench
  count:20`, then a click on choice A of each item, or the code as a ```python block in the DM for
  the code item. With two processes the requests go round robin (per request, as a plain load
  balancer would) or, with `--balance sticky`, each learner always to the same process. The ack
  is the HTTP 200 (Bolt acknowledges before the work).
- Discord learners send INTERACTION_CREATE over the fake gateway (with two processes, two shards:
  DISCORD_SHARD_COUNT=2, DISCORD_SHARDS=0 / 1, each learner in a guild of one shard, as Discord
  routes them); the ack is the interaction callback POST reaching the fake Discord (the bot sends
  the reply itself when it is ready within 2 s, else it defers). Code goes through the item's
  Answer form.

Each learner answers, waits for the next item, answers again (flat out, or after reading it for
about `--think` seconds), for `--seconds`; a finished quiz is
followed by a new one. One item in 20 is code (5% of answers go to the sandbox). An answer the bot
refuses as "already answered" sends the learner to `/quiz current`. Afterwards the bots are
stopped with SIGTERM (they finish what is in flight) and the attempts stored in the database are
compared with the answers acknowledged. Counted apart (the learner was told, nothing is stored by
design): code acknowledged and then answered "the sandbox is busy, try again" (the learner sends it
again), and code still being graded at the stop (its row of unfinished work tells the learner
after a restart). An answer acknowledged and then met with the bot's apology for an error is
counted too, and still printed as a mismatch. Also printed: the time from an answer to the next item,
each bot process's RSS (VmRSS sampled every 0.5 s, and VmHWM) and whether it mapped torch, its
sandbox pool's PSS, its CPU time, the database connections' states, the load average; and at
the end sandbox jobs/s through the bot's client with one and two services (the measure of
bench/sandbox_service_bench.py).

The figure to compare code by is the line `bot CPU per answer: <ms> ms (<platform>, <n> processes,
<database>)`: the user + system CPU time of the bot processes (all their threads, from
/proc/<pid>/stat) while the learners ran, divided by the answers acknowledged. The host's other
load moves it far less than it moves the rates. `--bot-root A,B` runs the bots from each checkout
in turn, configuration by configuration (A, B, A, B with `--repeat 2`), so two versions of the code
are measured by the same benchmark in one sitting.

    python bench/platform_bench.py [--seconds 60] [--learners 500] [--only slack,discord]
        [--processes 1,2] [--sandbox local,service] [--balance roundrobin,sticky] [--jobs 100] [--think 0]
        [--database postgresql,sqlite] [--bot-root PATH,...] [--repeat 1]

Prints figures; asserts nothing (a mismatch of attempts and acks is printed loudly).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import re
import resource
import secrets
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the fake platforms live in tests/

import aiohttp  # noqa: E402
import asyncpg  # noqa: E402
from aiohttp import WSMsgType, web  # noqa: E402

from bench.sandbox_service_bench import drive  # noqa: E402
from bot.sandbox_remote import RemoteRunner  # noqa: E402
from tests.discord import payloads as p  # noqa: E402
from tests.discord.fake_discord import APP_ID, BOT_USER, Call, FakeDiscord, check_message  # noqa: E402
from tests.discord.fake_discord import BOT_TOKEN as DISCORD_TOKEN  # noqa: E402
from tests.discord.fake_discord import _json as discord_json  # noqa: E402
from tests.ops.services import TOKEN as SANDBOX_TOKEN  # noqa: E402
from tests.ops.services import Service, free_port, uid_base  # noqa: E402
from tests.slack.conftest import BOT_TOKEN as SLACK_TOKEN  # noqa: E402
from tests.slack.conftest import SIGNING_SECRET, TEAM, Slack  # noqa: E402
from tests.slack.fake_slack import FakeSlack  # noqa: E402

BOT_LOG_LEVEL = "WARNING"  # --log-level: the bot processes' QUIZBOT_LOG_LEVEL (INFO shows the saves made again)
THINK_S = 0.0  # --think: a learner reads each item for 0.5-1.5 times this long before answering (0: flat out)


async def think() -> None:
    if THINK_S > 0:
        await asyncio.sleep(THINK_S * (0.5 + random.random()))


PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"
CHOICES = 19  # choice items per quiz, plus one code item: 5% of answers are code
SOLUTION = "total = sum(range(1, 11))\nprint(total)\n"
ACK_WAIT_S = 10.0  # an answer not acknowledged within this is counted lost
NEXT_WAIT_S = 30.0  # the longest a learner waits for the next item before starting over
SLOW_ACK_S = 3.0


# ------------------------------------------------------------------ the quiz


def write_pack(folder: Path) -> None:
    """The benchmark's pack: 19 two-choice items (A is right) and one code item graded in the sandbox."""
    questions: list[dict[str, Any]] = [
        {
            "id": f"c{n:02d}",
            "type": "choice",
            "topic": "bench",
            "difficulty": "easy",
            "prompt": f"Bench question {n}: which is right?",
            "shuffle": False,
            "choices": [{"text": "right", "correct": True}, {"text": "wrong"}],
        }
        for n in range(CHOICES)
    ]
    test = (
        "import unittest\n\n\nclass TestTotal(unittest.TestCase):\n    def test_value(self):\n"
        "        import user_code\n        self.assertEqual(user_code.total, 55)\n"
    )
    questions.append(
        {
            "id": "code",
            "type": "code",
            "topic": "bench",
            "difficulty": "hard",
            "prompt": "Define `total` as the sum of 1 to 10 and print it.",
            "starter": "total = 0\n",
            "test": test,
            "solution": SOLUTION,
        }
    )
    pack = {"pack": "bench", "title": "Bench", "version": 1, "topics": [{"id": "bench", "title": "Bench"}], "questions": questions}
    (folder / "bench").mkdir(parents=True, exist_ok=True)
    (folder / "bench" / "pack.yaml").write_text(json.dumps(pack, indent=1))  # JSON is YAML


# ------------------------------------------------------------------ measurements


@dataclass
class Tally:
    acks: list[float] = field(default_factory=list)  # seconds, one per answer acknowledged
    replies: list[float] = field(default_factory=list)  # seconds from sending an answer to the next item shown
    problems: dict[str, int] = field(default_factory=dict)  # what went wrong, by kind (for the report)
    answers_sent: int = 0
    lost: int = 0  # no ack within ACK_WAIT_S
    http_errors: int = 0  # a non-200 answer to a learner's request, or a connection error
    stalls: int = 0  # no next item within NEXT_WAIT_S
    code_stalls: int = 0  # of the stalls after an answer, those after a code answer
    refused: int = 0  # acknowledged, then answered "That question was already answered" by the bot
    busy: int = 0  # code acknowledged, then answered "The sandbox is busy; try again" (not graded, by design)
    failed: int = 0  # acknowledged, then answered with the bot's apology for an error ("something went wrong")
    reshown: int = 0  # the answered item posted again, graded (its message was not known to the process yet)
    quizzes: int = 0
    code_answers: int = 0
    other_requests: int = 0  # starts, form openings: acknowledged, not answers

    def answered(self, seconds: float) -> None:
        self.acks.append(seconds)

    def problem(self, kind: str) -> None:
        self.problems[kind] = self.problems.get(kind, 0) + 1


def percentile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, round(q * len(sorted_values) + 0.5) - 1))
    return sorted_values[index]


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of one process, in kB (empty if it is gone)."""
    out: dict[str, int] = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(("VmRSS:", "VmHWM:")):
                out[line.split(":")[0]] = int(line.split()[1])
    except OSError:
        pass
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process so far (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def runqueue_wait_seconds(pid: int) -> float:
    """Time the process's threads spent runnable but waiting for a CPU so far (/proc/<pid>/task/*/schedstat)."""
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0
    for task in tasks:
        try:
            total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return total / 1e9


def descendants(pid: int) -> list[int]:
    found: list[int] = []
    todo = [pid]
    while todo:
        current = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                children = Path(f"/proc/{current}/task/{task}/children").read_text().split()
            except OSError:
                continue
            for child in children:
                found.append(int(child))
                todo.append(int(child))
    return found


def pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def maps(pid: int, fragment: str) -> bool:
    """Whether a file whose path holds `fragment` is mapped into the process (a shared library it imported)."""
    try:
        return fragment in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def has_torch(pid: int) -> bool:
    """Whether torch's shared libraries are mapped into the process (i.e. it imported torch)."""
    return maps(pid, "libtorch")


class MemorySampler:
    """Samples each bot process's RSS (and its VmHWM) and its sandbox pool's total PSS."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.rss_peak_kb = dict.fromkeys(pids, 0)
        self.hwm_kb = dict.fromkeys(pids, 0)
        self.pool_peak_kb = dict.fromkeys(pids, 0)
        self.torch = dict.fromkeys(pids, False)
        self.uvloop = dict.fromkeys(pids, False)

    def sample(self, *, pools: bool) -> None:
        for pid in self.pids:
            status = proc_status(pid)
            self.rss_peak_kb[pid] = max(self.rss_peak_kb[pid], status.get("VmRSS", 0))
            self.hwm_kb[pid] = max(self.hwm_kb[pid], status.get("VmHWM", 0))
            if pools:
                self.pool_peak_kb[pid] = max(self.pool_peak_kb[pid], sum(pss_kb(c) for c in descendants(pid)))

    async def run(self, stop: asyncio.Event) -> None:
        n = 0
        while not stop.is_set():
            self.sample(pools=n % 4 == 0)  # the pool's smaps are costlier to read: every 2 s
            n += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.5)
        self.sample(pools=True)
        for pid in self.pids:
            self.torch[pid] = has_torch(pid)
            self.uvloop[pid] = maps(pid, "/uvloop/")


class PgSampler:
    """Samples the benchmark database's connections in pg_stat_activity: how many, and in which state."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.peak_total = 0
        self.peak_idle_in_transaction = 0
        self.peak_lock_waits = 0
        self.samples = 0
        self.sum_idle_in_transaction = 0

    async def run(self, stop: asyncio.Event) -> None:
        conn = await asyncpg.connect(PG_ADMIN)
        try:
            while not stop.is_set():
                rows = await conn.fetch(
                    "SELECT state, wait_event_type FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
                    self.name,
                )
                idle_tx = sum(1 for r in rows if r["state"] == "idle in transaction")
                self.peak_total = max(self.peak_total, len(rows))
                self.peak_idle_in_transaction = max(self.peak_idle_in_transaction, idle_tx)
                self.peak_lock_waits = max(self.peak_lock_waits, sum(1 for r in rows if r["wait_event_type"] == "Lock"))
                self.samples += 1
                self.sum_idle_in_transaction += idle_tx
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), 1.0)
        finally:
            await conn.close()

    def summary(self) -> str:
        mean = self.sum_idle_in_transaction / self.samples if self.samples else 0.0
        return (
            f"PostgreSQL connections of the bots (sampled each second): peak {self.peak_total}; "
            f"'idle in transaction' (held open by the bot between statements) peak {self.peak_idle_in_transaction}, "
            f"mean {mean:.1f}; waiting for a row lock peak {self.peak_lock_waits}"
        )


# ------------------------------------------------------------------ the fake platforms, instrumented


class BenchSlack(FakeSlack):
    """The fake Slack, waking the learner whose DM the bot posted to."""

    def __init__(self) -> None:
        super().__init__(bot_token=SLACK_TOKEN, team=TEAM)
        self.posted: dict[str, asyncio.Event] = {}
        self.latest: dict[str, dict[str, Any]] = {}
        self.refusals: dict[str, int] = {}  # channel -> notes "already answered" (privately or by response_url)
        self.busy: dict[str, int] = {}  # channel -> notes "the sandbox is busy" (anywhere)
        self.failed: dict[str, int] = {}  # channel -> the bot's apologies for an error (anywhere)
        self.respond_to: dict[str, str] = {}  # response_url number -> the learner's channel
        self.api_calls = 0

    def answer_url(self, channel: str) -> str:
        url = self.response_url()
        self.respond_to[url.rsplit("/", 1)[1]] = channel
        return url

    def _refused(self, channel: str | None, text: str) -> None:
        if channel is not None and "already answered" in text:
            self.refusals[channel] = self.refusals.get(channel, 0) + 1
            self.posted.setdefault(channel, asyncio.Event()).set()
        if channel is not None and busy_note(text):
            self.busy[channel] = self.busy.get(channel, 0) + 1
            self.posted.setdefault(channel, asyncio.Event()).set()
        if channel is not None and FAILED in text:
            self.failed[channel] = self.failed.get(channel, 0) + 1
            self.posted.setdefault(channel, asyncio.Event()).set()

    def _record(self) -> None:
        self.api_calls += 1
        if len(self.calls) > 1000:  # the tests' call log, not needed here: keep memory flat
            del self.calls[:500]
        if len(self.ephemerals) > 1000:
            del self.ephemerals[:500]
        if len(self.responses) > 1000:
            del self.responses[:500]

    def _m_chat_postMessage(self, args: dict[str, Any]) -> web.Response:
        self._record()
        response = super()._m_chat_postMessage(args)
        channel = str(args.get("channel"))
        body = json.loads(response.text or "{}")
        if body.get("ok"):
            self.latest[channel] = body["message"]
            self.posted.setdefault(channel, asyncio.Event()).set()
            self._refused(channel, str(args.get("text") or ""))
        return response

    def _m_chat_update(self, args: dict[str, Any]) -> web.Response:
        self._record()
        return super()._m_chat_update(args)

    def _m_chat_postEphemeral(self, args: dict[str, Any]) -> web.Response:
        self._record()
        self._refused(str(args.get("channel")), str(args.get("text") or ""))
        return super()._m_chat_postEphemeral(args)

    async def _respond(self, request: web.Request) -> web.Response:
        response = await super()._respond(request)  # no await between its append and this line
        self._refused(self.respond_to.pop(request.match_info["n"], None), str(self.responses[-1].get("text") or ""))
        return response


class BenchDiscord(FakeDiscord):
    """The fake Discord: one gateway socket per shard, acks timed, each learner woken by its new messages."""

    def __init__(self) -> None:
        super().__init__()
        self.shard_sockets: dict[int, web.WebSocketResponse] = {}
        self.acked: dict[str, asyncio.Future[tuple[float, Call]]] = {}
        self.by_token: dict[str, dict[str, Any]] = {}  # interaction token -> payload
        self.inbox: dict[str, asyncio.Queue[dict[str, Any]]] = {}  # user id -> messages posted for them
        self.api_errors = 0
        self.api_calls = 0
        self._seq = 1

    def user_of(self, payload: dict[str, Any]) -> str:
        return str((payload.get("member") or {}).get("user", payload.get("user", {})).get("id"))

    def expect(self, payload: dict[str, Any]) -> asyncio.Future[tuple[float, Call]]:
        """Note a payload about to be sent; the future resolves when its callback arrives."""
        self.interactions[payload["id"]] = payload
        self.by_token[payload["token"]] = payload
        future: asyncio.Future[tuple[float, Call]] = asyncio.get_running_loop().create_future()
        self.acked[payload["id"]] = future
        return future

    def forget(self, payload: dict[str, Any]) -> None:
        self.interactions.pop(payload["id"], None)
        self.acked.pop(payload["id"], None)

    async def send_to(self, shard: int, event: str, data: dict[str, Any]) -> None:
        self._seq += 1
        await self.shard_sockets[shard].send_str(json.dumps({"op": 0, "t": event, "s": self._seq, "d": data}))

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self.sockets.append(ws)
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 45000}}))
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            payload = json.loads(msg.data)
            if payload["op"] == 1:
                await ws.send_str(json.dumps({"op": 11}))
            elif payload["op"] == 2:
                self.identify.append(payload["d"])
                shard = (payload["d"].get("shard") or [0, 1])[0]
                self.shard_sockets[shard] = ws
                ready = {
                    "v": 10, "user": BOT_USER, "guilds": [], "session_id": f"fake-session-{shard}",
                    "resume_gateway_url": f"{self.url.replace('http', 'ws')}/gateway",
                    "application": {"id": str(APP_ID), "flags": 0}, "private_channels": [], "relationships": [],
                    **({"shard": payload["d"]["shard"]} if "shard" in payload["d"] else {}),
                }  # fmt: skip
                await ws.send_str(json.dumps({"op": 0, "t": "READY", "s": 1, "d": ready}))
                self.ready.set()
        return ws

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.api_calls += 1
        response = await super()._handle(request)
        if response.status >= 400:
            self.api_errors += 1
        if len(self.calls) > 1000:  # the tests' call log, not needed here: keep memory flat
            del self.calls[:500]
        return response

    def _deliver(self, payload: dict[str, Any] | None, message_id: str | None) -> None:
        if payload is not None and message_id is not None and message_id in self.messages:
            self.inbox.setdefault(self.user_of(payload), asyncio.Queue()).put_nowait(self.messages[message_id])

    async def _callback(self, call: Call, iid: str, token: str) -> web.Response:
        response = await super()._callback(call, iid, token)
        future = self.acked.get(iid)
        if future is not None and not future.done():
            future.set_result((time.perf_counter(), call))
        if call.body.get("type") in (4, 5):
            self._deliver(self.interactions.get(iid), call.message_id)
        return response

    async def _followup(self, call: Call, app: str, token: str) -> web.Response:
        # as FakeDiscord's, with the interaction found by its token at once (not by a scan of them all)
        problems = check_message(call.body)
        if problems:
            return self._invalid(call, problems)
        interaction = self.by_token.get(token, {})
        channel_id = (interaction.get("channel") or {}).get("id") or "1"
        message = self._store(channel_id, call.body, webhook=True)
        call.message_id = message["id"]
        self._deliver(interaction, message["id"])
        return discord_json(message)

    async def _edit_webhook(self, call: Call, app: str, token: str, mid: str) -> web.Response:
        response = await super()._edit_webhook(call, app, token, mid)
        if response.status == 200:  # e.g. "Running your code..." becomes the next item
            self._deliver(self.by_token.get(token), call.message_id)
        return response


# ------------------------------------------------------------------ learners


def is_slack_item(message: dict[str, Any]) -> bool:
    first = message["blocks"][0] if message.get("blocks") else {}
    return first.get("type") == "header" and first["text"]["text"].startswith("Question ")


def item_title(message: dict[str, Any]) -> str | None:
    """The header of a quiz item ("Question 3 of 20"), else None."""
    return str(message["blocks"][0]["text"]["text"]) if is_slack_item(message) else None


def slack_action(message: dict[str, Any], label: str) -> tuple[dict[str, Any], str] | None:
    for n, block in enumerate(message.get("blocks", [])):
        if block.get("type") != "actions":
            continue
        for element in block.get("elements", []):
            if element.get("type") == "button" and element["text"]["text"] == label:
                return element, block.get("block_id", f"b{n}")
    return None


class SlackLearners:
    def __init__(self, fake: BenchSlack, urls: list[str], http: aiohttp.ClientSession, tally: Tally, *, sticky: bool) -> None:
        self.fake, self.tally, self.sticky = fake, tally, sticky
        self.workspaces = [Slack(http, url, fake, None) for url in urls]  # the tests' signing client, one per process
        self._n = 0

    async def send(self, body: str, content_type: str, index: int) -> tuple[int, float]:
        self._n += 1
        # round robin, as a load balancer would; or sticky: each learner always to the same process
        workspace = self.workspaces[(index if self.sticky else self._n) % len(self.workspaces)]
        began = time.perf_counter()
        try:
            status, _ = await asyncio.wait_for(workspace.send(body, content_type, settle=False), ACK_WAIT_S)
        except TimeoutError:
            status = -1
        except aiohttp.ClientError:
            status = 0
        return status, time.perf_counter() - began

    def command(self, user: str, text: str) -> str:
        return urlencode(
            {
                "token": "gIkuvaNzQIHg97ATvDxqgjtO", "team_id": TEAM, "team_domain": "quizbot-test",
                "channel_id": "D" + user, "channel_name": "directmessage", "user_id": user, "user_name": user.lower(),
                "command": "/quiz", "text": text, "api_app_id": "A0001",
                "is_enterprise_install": "false", "response_url": self.fake.answer_url("D" + user), "trigger_id": f"{self._n}.9.ab",
            }
        )  # fmt: skip

    def click(self, user: str, message: dict[str, Any], element: dict[str, Any], block_id: str) -> str:
        channel = "D" + user
        action = {"action_id": element["action_id"], "block_id": block_id, "type": "button", "text": element["text"],
                  "action_ts": f"{time.time():.6f}"}  # fmt: skip
        if "value" in element:
            action["value"] = element["value"]
        payload = {
            "type": "block_actions",
            "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": TEAM},
            "api_app_id": "A0001", "token": "gIkuvaNzQIHg97ATvDxqgjtO",
            "container": {"type": "message", "message_ts": message["ts"], "channel_id": channel, "is_ephemeral": False},
            "trigger_id": f"{self._n}.9.ab", "team": {"id": TEAM, "domain": "quizbot-test"},
            "channel": {"id": channel, "name": "directmessage"}, "message": message, "state": {"values": {}},
            "response_url": self.fake.answer_url(channel), "actions": [action],
        }  # fmt: skip
        return urlencode({"payload": json.dumps(payload)})

    def code_message(self, user: str) -> str:
        self._n += 1
        event = {
            "type": "message", "channel": "D" + user, "user": user, "text": f"```python\n{SOLUTION}```",
            "ts": f"{time.time():.6f}", "event_ts": f"{time.time():.6f}", "channel_type": "im", "team": TEAM,
        }  # fmt: skip
        body = {
            "token": "gIkuvaNzQIHg97ATvDxqgjtO", "team_id": TEAM, "api_app_id": "A0001", "event": event,
            "type": "event_callback", "event_id": f"Ev{user}{self._n:09d}", "event_time": int(time.time()),
            "authorizations": [{"enterprise_id": None, "team_id": TEAM, "user_id": "UBOT", "is_bot": True, "is_enterprise_install": False}],
            "is_ext_shared_channel": False,
        }  # fmt: skip
        return json.dumps(body)

    async def next_post(
        self, channel: str, after: str | None, refusals: int = -1, answered: str | None = None, busy: int = -1, failed: int = -1
    ) -> dict[str, Any] | None:
        """The bot's newest post in the DM once it is newer than `after` (None after NEXT_WAIT_S).

        With `refusals` (the channel's count of "already answered" notes before the answer), a new
        such note ends the wait too: the answer is returned as {"refused": True}. A post of the item
        titled `answered` (the one just answered, shown again with its grade when the process did
        not know its message) is not the next item: the wait goes on.
        """
        event = self.fake.posted.setdefault(channel, asyncio.Event())
        deadline = time.monotonic() + NEXT_WAIT_S
        while True:
            if refusals >= 0 and self.fake.refusals.get(channel, 0) > refusals:
                return {"refused": True}
            if busy >= 0 and self.fake.busy.get(channel, 0) > busy:
                return {"busy": True}
            if failed >= 0 and self.fake.failed.get(channel, 0) > failed:
                return {"failed": True}
            latest = self.fake.latest.get(channel)
            if latest is not None and (after is None or float(latest["ts"]) > float(after)):
                if answered is None or item_title(latest) != answered:
                    return latest
                self.tally.reshown += 1
                after = latest["ts"]
                continue
            event.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), left)

    async def learner(self, index: int, until: float) -> None:
        user = f"UL{index:05d}"
        channel = "D" + user
        await asyncio.sleep(index * 0.004)  # the 500 starts spread over 2 s
        after: str | None = None
        item: dict[str, Any] | None = None
        tally = self.tally
        recover = False
        while time.monotonic() < until:
            if item is None:
                # a new quiz; or, after an answer the bot refused or left unanswered, the current item again
                text = "current" if recover else "start bench count:20"
                status, _ = await self.send(self.command(user, text), "application/x-www-form-urlencoded", index)
                tally.other_requests += 1
                if status != 200:
                    tally.http_errors += 1
                    await asyncio.sleep(1)
                    continue
                tally.quizzes += not recover
                recover = False
                post = await self.next_post(channel, after)
                if post is None:
                    tally.stalls += 1
                    recover = text != "current"  # a quiz that was started and not shown: ask for it
                    continue
                after = post["ts"]
                item = post if is_slack_item(post) else None
                continue
            choice = slack_action(item, "A")
            await think()
            tally.answers_sent += 1
            refusals, busy, failed = (self.fake.refusals.get(channel, 0), self.fake.busy.get(channel, 0), self.fake.failed.get(channel, 0))
            sent = time.perf_counter()
            if choice is not None:
                status, took = await self.send(self.click(user, item, *choice), "application/x-www-form-urlencoded", index)
            else:  # the code item: the code as a block in the DM
                tally.code_answers += 1
                status, took = await self.send(self.code_message(user), "application/json", index)
            if status == 200:
                tally.answered(took)
            elif status == -1:
                tally.lost += 1
            else:
                tally.http_errors += 1
            post = await self.next_post(channel, after, refusals, answered=item_title(item), busy=busy, failed=failed)
            if post is None or "refused" in post or "busy" in post or "failed" in post:
                if post is None:
                    tally.stalls += 1
                    tally.code_stalls += choice is None
                elif "busy" in post:
                    tally.busy += 1  # the code is sent again, on the current item
                elif "failed" in post:
                    tally.failed += 1  # told to try again: the current item again
                else:
                    tally.refused += 1
                item, recover = None, True
                continue
            tally.replies.append(time.perf_counter() - sent)
            after = post["ts"]
            item = post if is_slack_item(post) else None  # else the summary: a new quiz


def message_text(message: dict[str, Any]) -> str:
    """A Discord message's words in one line: its content, and each embed's title and description."""
    words = [message.get("content") or ""]
    for embed in message.get("embeds") or []:
        words += [embed.get("title") or "", embed.get("description") or ""]
    return " | ".join(w.replace("\n", " ") for w in words if w)


def discord_guilds(shards: int) -> list[str]:
    """One guild id per shard, as Discord routes them: (guild_id >> 22) % shard_count."""
    out = []
    base = int(p.GUILD_ID)
    for shard in range(shards):
        g = base
        while (g >> 22) % shards != shard:
            g += 1 << 22
        out.append(str(g))
    return out


class DiscordLearners:
    def __init__(self, fake: BenchDiscord, shards: int, tally: Tally) -> None:
        self.fake, self.shards, self.tally = fake, shards, tally
        self.guilds = discord_guilds(shards)

    def payload(self, kind: int, data: dict[str, Any], user: p.User, shard: int, message: dict[str, Any] | None = None) -> dict[str, Any]:
        payload = p.interaction(kind, data, user, message=message)
        guild = self.guilds[shard]
        payload["guild_id"] = guild
        payload["authorizing_integration_owners"] = {"0": guild}
        return payload

    async def send(self, shard: int, payload: dict[str, Any]) -> tuple[float, Call] | None:
        future = self.fake.expect(payload)
        began = time.perf_counter()
        await self.fake.send_to(shard, "INTERACTION_CREATE", payload)
        try:
            at, call = await asyncio.wait_for(future, ACK_WAIT_S)
        except TimeoutError:
            return None
        finally:
            self.fake.forget(payload)
        return at - began, call

    async def next_message(self, inbox: asyncio.Queue[dict[str, Any]], answered: str | None) -> dict[str, Any] | None:
        """The next item or summary posted for the learner, not the one answered (None after NEXT_WAIT_S)."""
        deadline = time.monotonic() + NEXT_WAIT_S
        skipped = ""
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = await asyncio.wait_for(inbox.get(), left)
            except TimeoutError:
                break
            if message["id"] == answered:
                continue
            titles = [e.get("title") or "" for e in message.get("embeds", [])]
            if any(t.startswith("Question") or "finished" in t for t in titles):
                return message
            skipped = message_text(message)
            if answered is not None and busy_note(skipped):
                return {"busy": True}
            if answered is not None and FAILED in skipped:
                return {"failed": True}
        if answered is not None:
            self.tally.problem(f"no next item; the last other message: {skipped[:100] or '(none)'}")
        return None

    async def learner(self, index: int, until: float) -> None:
        user = p.User(str(610000000000000000 + index), f"l{index:05d}")
        shard = index % self.shards
        inbox = self.fake.inbox.setdefault(user.id, asyncio.Queue())
        await asyncio.sleep(index * 0.004)
        item: dict[str, Any] | None = None
        tally = self.tally
        recover = False
        while time.monotonic() < until:
            if item is None:
                # a new quiz; or, after an answer the bot refused or left unanswered, the current item again
                options = [] if recover else [p.option("pack", "bench"), p.option("count", 20)]
                start = self.payload(2, p.command("current" if recover else "start", options), user, shard)
                tally.other_requests += 1
                if await self.send(shard, start) is None:
                    tally.lost += 1
                    continue
                tally.quizzes += not recover
                item = await self.next_message(inbox, None)
                if item is None:
                    tally.stalls += 1
                    recover = not recover
                    continue
                recover = False
                if not any((e.get("title") or "").startswith("Question") for e in item["embeds"]):
                    item = None
                continue
            buttons = [c for row in item["components"] for c in row["components"] if c.get("type") == 2]
            choice = next((b for b in buttons if b.get("label", "").startswith("A. ")), None)
            await think()
            tally.answers_sent += 1
            sent = time.perf_counter()
            if choice is not None:
                acked = await self.send(shard, self.payload(3, p.component(choice["custom_id"], 2), user, shard, item))
            else:  # the code item: open the Answer form, then submit the code
                tally.code_answers += 1
                answer = next((b for b in buttons if b.get("label") == "Answer"), None)
                opened = None
                if answer is not None:
                    opened = await self.send(shard, self.payload(3, p.component(answer["custom_id"], 2), user, shard, item))
                    tally.other_requests += 1
                if opened is None or opened[1].body.get("type") != 9:
                    # a form must be the interaction's first response: a deferred click cannot open it
                    kind = "no ack" if opened is None else f"callback type {opened[1].body.get('type')}"
                    tally.problem(f"code item: Answer form not opened ({kind})")
                    tally.answers_sent -= 1
                    tally.code_answers -= 1
                    item, recover = None, True
                    continue
                form = opened[1].body["data"]["custom_id"]
                acked = await self.send(shard, self.payload(5, p.modal_submit(form, SOLUTION), user, shard, item))
            if acked is None:
                tally.lost += 1
            else:
                tally.answered(acked[0])
                if acked[1].body.get("type") == 4 and "already answered" in json.dumps(acked[1].body):
                    tally.refused += 1
                    item, recover = None, True
                    continue
            item = await self.next_message(inbox, item["id"])
            if item is not None and ("busy" in item or "failed" in item):
                if "busy" in item:
                    tally.busy += 1  # the code is sent again, on the current item
                else:
                    tally.failed += 1  # told to try again: the current item again
                item, recover = None, True
                continue
            if item is not None:
                tally.replies.append(time.perf_counter() - sent)
            if item is None:
                tally.stalls += 1
                tally.code_stalls += choice is None
                recover = True
            elif not any((e.get("title") or "").startswith("Question") for e in item["embeds"]):
                item = None  # the summary: a new quiz


# ------------------------------------------------------------------ bot processes


class Bot:
    """One `quizbot run` process, pointed at the fake platforms and the benchmark's database."""

    def __init__(self, folder: Path, name: str, env: dict[str, str], root: Path = ROOT) -> None:
        self.metrics_port = free_port()
        self.slack_port = free_port()
        self.log_path = folder / f"{name}.log"
        self._log = self.log_path.open("wb")
        base = {k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "SLACK_", "DISCORD_"))}
        self.env = {
            **base,
            "PYTHONPATH": str(root),  # the checkout whose code runs (--bot-root)
            "QUIZBOT_METRICS_PORT": str(self.metrics_port),
            "QUIZBOT_METRICS_HOST": "127.0.0.1",
            "QUIZBOT_LOG_LEVEL": BOT_LOG_LEVEL,
            "QUIZBOT_SCHEDULER": "off",
            "QUIZBOT_SANDBOX_UID_BASE": str(uid_base(self.metrics_port)),
            "SLACK_PORT": str(self.slack_port),
            **env,
        }
        self.process = subprocess.Popen(
            [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main(['run']))"],
            cwd=folder, env=self.env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    @property
    def slack_url(self) -> str:
        return f"http://127.0.0.1:{self.slack_port}/slack/events"

    def ready(self) -> bool:
        if self.process.poll() is not None:
            raise RuntimeError(f"the bot process ended ({self.process.returncode}):\n{self.log_tail()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/readyz", timeout=2) as response:
                return bool(response.status == 200)
        except OSError:
            return False

    async def wait_ready(self, timeout: float = 240.0) -> float:
        began = time.monotonic()
        while not await asyncio.to_thread(self.ready):
            if time.monotonic() - began > timeout:
                raise RuntimeError(f"the bot process was not ready in {timeout:.0f} s:\n{self.log_tail()}")
            await asyncio.sleep(0.3)
        return time.monotonic() - began

    def log_tail(self, lines: int = 30) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> int | None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(40)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        self._log.close()
        return self.process.returncode


def log_errors(path: Path) -> tuple[int, dict[str, int]]:
    """ERROR lines in a bot's log, and the exceptions its tracebacks end with (first 120 characters)."""
    errors = 0
    exceptions: dict[str, int] = {}
    for line in path.read_text(errors="replace").splitlines():
        if " ERROR " in line[:40]:
            errors += 1
        elif re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit)\b", line):
            key = line[:120]
            exceptions[key] = exceptions.get(key, 0) + 1
    return errors, exceptions


async def make_database(database: str, folder: Path) -> tuple[str, str]:
    """A fresh database: its name (a PostgreSQL database, or a SQLite file's path) and the bots' URL."""
    name = f"qb_platform_bench_{secrets.token_hex(4)}"
    if database == "sqlite":
        path = folder / f"{name}.db"
        return str(path), f"sqlite+aiosqlite:///{path}"
    admin = await asyncpg.connect(PG_ADMIN)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return name, f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"


async def drop_database(database: str, name: str) -> None:
    if database == "sqlite":
        for suffix in ("", "-wal", "-shm"):
            Path(name + suffix).unlink(missing_ok=True)
        return
    admin = await asyncpg.connect(PG_ADMIN)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


BUSY = re.compile(r"busy[;,] try again")  # the bot's answer to code it could not grade now (older code: "⏳ busy, try again in 1 s")


def busy_note(text: str) -> bool:
    return BUSY.search(text) is not None


FAILED = "went wrong"  # the bot's apology for an error it logged ("Something went wrong on my side ...")
UNFINISHED_GRADES = "SELECT count(*) FROM unfinished_work WHERE platform = {p} AND kind = 'grade'"


def _count_sqlite(path: str, platform: str) -> tuple[int, int]:
    with contextlib.closing(sqlite3.connect(path, timeout=30)) as conn:
        attempts = conn.execute("SELECT count(*) FROM attempts WHERE platform = ?", (platform,)).fetchone()[0]
        unfinished = conn.execute(UNFINISHED_GRADES.format(p="?"), (platform,)).fetchone()[0]
        return int(attempts), int(unfinished)


async def count_attempts(database: str, name: str, platform: str) -> tuple[int, int]:
    """The attempts stored, and the code answers accepted but still ungraded (their rows of unfinished work)."""
    if database == "sqlite":
        return await asyncio.to_thread(_count_sqlite, name, platform)
    conn = await asyncpg.connect(f"postgresql://postgres@127.0.0.1:5432/{name}")
    try:
        attempts = await conn.fetchval("SELECT count(*) FROM attempts WHERE platform = $1", platform)
        unfinished = await conn.fetchval(UNFINISHED_GRADES.format(p="$1"), platform)
        return int(attempts), int(unfinished)
    finally:
        await conn.close()


# ------------------------------------------------------------------ one configuration


@dataclass
class Result:
    platform: str
    processes: int
    sandbox: str
    seconds: float
    learners: int
    tally: Tally
    attempts: int
    api_errors: int
    rss_peak_mb: list[float]
    hwm_mb: list[float]
    pool_mb: list[float]
    torch: list[bool]
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    started_utc: str
    bench_cpu_s: float
    startup_s: list[float]
    exit_codes: list[int | None]
    balance: str = "roundrobin"
    bots_cpu_s: list[float] = field(default_factory=list)
    pg: str = ""
    log_errors: list[tuple[int, dict[str, int]]] = field(default_factory=list)
    bots_wait_s: list[float] = field(default_factory=list)
    database: str = "postgresql"
    bot_root: Path = ROOT
    uvloop: list[bool] = field(default_factory=list)  # whether each bot process runs on uvloop (mapped its library)
    warmup_s: float = 0.0  # the CPU per answer counts from here (0: the whole run)
    steady_cpu_s: float = 0.0  # the bots' CPU time after the warm-up, all processes
    steady_acks: int = 0  # the answers acknowledged after the warm-up
    unfinished: int = 0  # code answers accepted (acknowledged) whose grading was still unfinished at the stop

    def whole_run_cpu_per_answer_ms(self) -> float:
        acks = len(self.tally.acks)
        return 1000 * sum(self.bots_cpu_s) / acks if acks else float("nan")

    def cpu_per_answer_ms(self) -> float:
        """The bot processes' CPU time per answer acknowledged after the warm-up (NaN for none).

        The warm-up (every learner's first quiz start, the caches filling) is left out: its cost is
        the same however fast the answers come, so per answer it would weigh most where fewest are served.
        """
        return 1000 * self.steady_cpu_s / self.steady_acks if self.steady_acks else float("nan")

    def cpu_line(self) -> str:
        count = f"{self.processes} process{'es' if self.processes != 1 else ''}"
        return f"bot CPU per answer: {self.cpu_per_answer_ms():.2f} ms ({self.platform}, {count}, {self.database})"


async def run_config(
    platform: str, processes: int, sandbox: str, *, seconds: float, learners: int, folder: Path, packs: Path,
    service_url: str | None, balance: str = "roundrobin", database: str = "postgresql", bot_root: Path = ROOT,
    warmup: float = 10.0,
) -> Result:  # fmt: skip
    name, url = await make_database(database, folder)
    bots: list[Bot] = []
    fake_slack = BenchSlack() if platform == "slack" else None
    fake_discord = BenchDiscord() if platform == "discord" else None
    tally = Tally()
    try:
        if fake_slack is not None:
            await fake_slack.start()
        if fake_discord is not None:
            await fake_discord.start()
        startup: list[float] = []
        for n in range(processes):
            env = {"QUIZBOT_DATABASE_URL": url, "QUIZBOT_PACKS": str(packs)}
            if fake_slack is not None:
                env |= {"SLACK_BOT_TOKEN": SLACK_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET, "SLACK_API_URL": fake_slack.api_url}
            if fake_discord is not None:
                env |= {"DISCORD_TOKEN": DISCORD_TOKEN, "DISCORD_API_URL": fake_discord.api_url}
                if processes > 1:
                    env |= {"DISCORD_SHARD_COUNT": str(processes), "DISCORD_SHARDS": str(n)}
            if sandbox == "service":
                assert service_url is not None
                env |= {"QUIZBOT_SANDBOX_URLS": service_url, "QUIZBOT_SANDBOX_TOKEN": SANDBOX_TOKEN}
            else:
                env |= {"QUIZBOT_SANDBOX_WORKERS": "2", "QUIZBOT_SANDBOX_MEMORY_MB": "256", "QUIZBOT_SANDBOX_WARM_OPTIMIZERS": "false"}
            bot = Bot(folder, f"{platform}-{processes}-{sandbox}-{balance}-{database}-{secrets.token_hex(2)}-{n}", env, bot_root)
            bots.append(bot)
            startup.append(await bot.wait_ready())  # one after the other: the first imports the pack
        if fake_discord is not None:
            deadline = time.monotonic() + 60
            while len(fake_discord.shard_sockets) < processes and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            if len(fake_discord.shard_sockets) < processes:
                raise RuntimeError(f"only {len(fake_discord.shard_sockets)} of {processes} shards connected")
            await asyncio.sleep(1.0)  # READY handled, commands synced
        sampler = MemorySampler([b.process.pid for b in bots])
        stop_sampling = asyncio.Event()
        sampling = asyncio.create_task(sampler.run(stop_sampling))
        pg = PgSampler(name) if database == "postgresql" else None
        pg_sampling = asyncio.create_task(pg.run(stop_sampling)) if pg is not None else None
        load_before = os.getloadavg()
        started_utc = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        cpu_before = resource.getrusage(resource.RUSAGE_SELF)
        bots_cpu_before = [cpu_seconds(b.process.pid) for b in bots]
        bots_wait_before = [runqueue_wait_seconds(b.process.pid) for b in bots]
        until = time.monotonic() + seconds
        began = time.monotonic()
        steady: list[tuple[list[float], int]] = []  # the bots' CPU and the acks so far, once the warm-up is over

        async def mark_steady() -> None:
            await asyncio.sleep(warmup)
            steady.append(([cpu_seconds(b.process.pid) for b in bots], len(tally.acks)))

        marker = asyncio.create_task(mark_steady()) if 0 < warmup < seconds else None
        if fake_slack is not None:
            connector = aiohttp.TCPConnector(limit=0)
            async with aiohttp.ClientSession(connector=connector) as http:
                group = SlackLearners(fake_slack, [b.slack_url for b in bots], http, tally, sticky=balance == "sticky")
                await asyncio.wait_for(asyncio.gather(*(group.learner(i, until) for i in range(learners))), seconds + 2 * NEXT_WAIT_S + 30)
        else:
            assert fake_discord is not None
            dgroup = DiscordLearners(fake_discord, processes, tally)
            await asyncio.wait_for(asyncio.gather(*(dgroup.learner(i, until) for i in range(learners))), seconds + 3 * NEXT_WAIT_S + 30)
        elapsed = time.monotonic() - began
        cpu_after = resource.getrusage(resource.RUSAGE_SELF)
        bots_cpu = [cpu_seconds(b.process.pid) - c for b, c in zip(bots, bots_cpu_before, strict=True)]
        if marker is not None:
            marker.cancel()
        steady_cpu, steady_acks = (
            (sum(cpu_seconds(b.process.pid) - c for b, c in zip(bots, steady[0][0], strict=True)), len(tally.acks) - steady[0][1])
            if steady
            else (sum(bots_cpu), len(tally.acks))
        )
        bots_wait = [runqueue_wait_seconds(b.process.pid) - w for b, w in zip(bots, bots_wait_before, strict=True)]
        load_after = os.getloadavg()
        stop_sampling.set()
        await sampling
        if pg_sampling is not None:
            await pg_sampling
        # SIGTERM: each bot finishes what is in flight (QUIZBOT_SHUTDOWN_GRACE_S) before the count
        exit_codes = await asyncio.gather(*(asyncio.to_thread(b.stop) for b in bots))
        attempts, unfinished = await count_attempts(database, name, platform)
        api_errors = len(fake_slack.errors) if fake_slack is not None else (fake_discord.api_errors if fake_discord else 0)
        pids = sampler.pids
        return Result(
            platform, processes, sandbox, elapsed, learners, tally, attempts, api_errors,
            [sampler.rss_peak_kb[x] / 1024 for x in pids], [sampler.hwm_kb[x] / 1024 for x in pids],
            [sampler.pool_peak_kb[x] / 1024 for x in pids], [sampler.torch[x] for x in pids],
            load_before, load_after, started_utc,
            (cpu_after.ru_utime + cpu_after.ru_stime) - (cpu_before.ru_utime + cpu_before.ru_stime),
            startup, list(exit_codes), balance, bots_cpu, pg.summary() if pg is not None else "",
            [log_errors(b.log_path) for b in bots], bots_wait, database, bot_root,
            [sampler.uvloop[x] for x in pids], warmup if steady else 0.0, steady_cpu, steady_acks, unfinished,
        )  # fmt: skip
    finally:
        for bot in bots:
            bot.stop()
        if fake_slack is not None:
            await fake_slack.close()
        if fake_discord is not None:
            await fake_discord.close()
        await drop_database(database, name)


def ms(values: Sequence[float], q: float) -> str:
    return f"{1000 * percentile(values, q):.0f}" if values else "-"


def label(r: Result) -> str:
    """The platform, with the load balancing of Slack requests when there are two processes."""
    if r.platform == "slack" and r.processes > 1:
        return f"slack ({'sticky by learner' if r.balance == 'sticky' else 'round robin'})"
    return r.platform


def print_result(r: Result) -> None:
    t = r.tally
    acks = sorted(t.acks)
    over = sum(1 for a in acks if a > SLOW_ACK_S)
    where = "sandbox service (1 x 2 workers)" if r.sandbox == "service" else "local pool (2 workers per process)"
    print(f"\n== {label(r)}, {r.processes} bot process(es), {where}, {r.database}; code at {r.bot_root} ==", flush=True)
    print(f"  started {r.started_utc}; ran {r.seconds:.1f} s with {r.learners} learners; load average before "
          f"{'/'.join(f'{x:.2f}' for x in r.load_before)}, after {'/'.join(f'{x:.2f}' for x in r.load_after)}")  # fmt: skip
    print(f"  bot start-up to ready: {', '.join(f'{s:.1f} s' for s in r.startup_s)}")
    print(f"  answers sent {t.answers_sent} (code {t.code_answers}), acknowledged {len(acks)} "
          f"({len(acks) / r.seconds:.1f}/s); quizzes started {t.quizzes}; other requests {t.other_requests}")  # fmt: skip
    print(f"  ack latency ms: p50 {ms(acks, 0.5)}  p95 {ms(acks, 0.95)}  p99 {ms(acks, 0.99)}  max {ms(acks, 1.0)}"
          f"  (mean {1000 * statistics.fmean(acks) if acks else float('nan'):.0f})")  # fmt: skip
    print(f"  acks over {SLOW_ACK_S:.0f} s: {over}; not acknowledged within {ACK_WAIT_S:.0f} s: {t.lost}; "
          f"HTTP errors to learners: {t.http_errors}; platform API errors: {r.api_errors}; "
          f"learners left waiting {NEXT_WAIT_S:.0f} s for a next item: {t.stalls}")  # fmt: skip
    print(f"  answers acknowledged, then refused by the bot as \"already answered\" (a stale click): {t.refused}")
    print(f"  answered items posted again, graded (the process did not know the item's message yet): {t.reshown}")
    replies = sorted(t.replies)
    print(f"  answer to next item shown, ms: p50 {ms(replies, 0.5)}  p95 {ms(replies, 0.95)}  p99 {ms(replies, 0.99)}  "
          f"max {ms(replies, 1.0)}  (n={len(replies)})")  # fmt: skip
    for kind, count in sorted(t.problems.items()):
        print(f"  {kind}: {count}")
    print(f"  code answers acknowledged, then answered \"the sandbox is busy, try again\" (sent again): {t.busy}")
    print(f"  answers acknowledged, then answered with the bot's apology for an error (see its log; sent again): {t.failed}")
    flag = "equal" if r.attempts + r.unfinished + t.busy == len(acks) else "MISMATCH !!!"
    print(f"  attempts in the database {r.attempts} + code answers left ungraded at the stop {r.unfinished} "
          f"+ code answers the sandbox was too busy for {t.busy} vs answers acknowledged {len(acks)}: {flag}")  # fmt: skip
    if r.attempts + r.unfinished + t.busy != len(acks):
        print(f"    of the {len(acks) - r.attempts - r.unfinished - t.busy} acknowledged answers not stored (net), the bot told the learner "
              f"\"already answered\" for {t.refused} and apologised for an error for {t.failed}; {t.stalls} learners never saw a next item, {t.code_stalls} of them "
              f"after a code answer; {t.lost} answers had no ack within {ACK_WAIT_S:.0f} s (stored or not) (see the bot log)")  # fmt: skip
    for n in range(r.processes):
        print(f"  bot process {n}: RSS peak sampled {r.rss_peak_mb[n]:.0f} MB, VmHWM {r.hwm_mb[n]:.0f} MB, torch imported: "
              f"{'yes' if r.torch[n] else 'no'}, uvloop: {'yes' if r.uvloop[n] else 'no'}; its sandbox pool (PSS, all processes) peak {r.pool_mb[n]:.0f} MB; "
              f"exit code {r.exit_codes[n]}; CPU {r.bots_cpu_s[n]:.1f} s ({100 * r.bots_cpu_s[n] / r.seconds:.0f}% of one core), "
              f"runnable but waiting for a CPU {r.bots_wait_s[n]:.1f} s")  # fmt: skip
    for n, (errors, exceptions) in enumerate(r.log_errors):
        print(f"  bot process {n} log: {errors} ERROR lines")
        for text, count in sorted(exceptions.items(), key=lambda kv: -kv[1])[:3]:
            print(f"    {count} x {text}")
    if r.pg:
        print(f"  {r.pg}")
    print(f"  benchmark process (fakes + learners) CPU: {r.bench_cpu_s:.1f} s in {r.seconds:.1f} s "
          f"({100 * r.bench_cpu_s / r.seconds:.0f}% of one core)")  # fmt: skip
    print(f"  {r.cpu_line()}")
    print(f"    ({r.steady_acks} answers after the first {r.warmup_s:g} s; over the whole run, the warm-up's quiz starts "
          f"included: {r.whole_run_cpu_per_answer_ms():.2f} ms)", flush=True)  # fmt: skip


def summary_table(results: list[Result]) -> None:
    print("\n| platform | bot processes | sandbox | database | code | bot CPU ms per answer | answers acked | acks/s | p50 ms | p95 ms | p99 ms | max ms | acks > 3 s | HTTP errors | attempts in DB | bot RSS peak MB (torch) | pool PSS peak MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        acks = sorted(r.tally.acks)
        over = sum(1 for a in acks if a > SLOW_ACK_S)
        rss = " / ".join(f"{x:.0f} ({'torch' if t else 'no torch'})" for x, t in zip(r.hwm_mb, r.torch, strict=True))
        pool = " / ".join(f"{x:.0f}" for x in r.pool_mb) if r.sandbox == "local" else "(service)"
        mark = "" if r.attempts + r.unfinished + r.tally.busy == len(acks) else " MISMATCH"
        ungraded = (f" + {r.unfinished} ungraded" if r.unfinished else "") + (f" + {r.tally.busy} sandbox busy" if r.tally.busy else "")
        print(f"| {label(r)} | {r.processes} | {r.sandbox} | {r.database} | {r.bot_root} | {r.cpu_per_answer_ms():.2f} | {len(acks)} | {len(acks) / r.seconds:.0f} | {ms(acks, 0.5)} | "
              f"{ms(acks, 0.95)} | {ms(acks, 0.99)} | {ms(acks, 1.0)} | {over} | {r.tally.http_errors + r.api_errors} | "
              f"{r.attempts}{ungraded}{mark} | {rss} | {pool} |")  # fmt: skip


async def sandbox_jobs(folder: Path, jobs: int, clients: int) -> None:
    """Sandbox jobs/s through the bot's client with one and two services (bench/sandbox_service_bench.py's measure)."""
    print(f"\n== sandbox jobs/s: {jobs} small torch jobs from {clients} concurrent callers, services of 1 worker ==")
    for count in (1, 2):
        services = [Service(folder / f"jobs-{count}-{n}.log", workers=1, queue=8) for n in range(count)]
        try:
            for service in services:
                await asyncio.to_thread(service.wait_ready)
            runner = RemoteRunner([s.url for s in services], SANDBOX_TOKEN, max_code_bytes=65536, wall_s=10.0)
            await drive(runner, 4, 2)  # warm-up
            load = os.getloadavg()
            elapsed, times, bad = await drive(runner, jobs, clients)
            times.sort()
            print(f"  {count} service(s): {len(times) / elapsed:.1f} jobs/s, p50 {1000 * statistics.median(times):.0f} ms, "
                  f"p99 {1000 * percentile(times, 0.99):.0f} ms, not ok {bad}; load average {load[0]:.2f}", flush=True)  # fmt: skip
            await runner.close()
        finally:
            for service in services:
                service.stop()


def parse_list(text: str, allowed: Callable[[str], bool]) -> list[str]:
    values = [v.strip() for v in text.split(",") if v.strip()]
    bad = [v for v in values if not allowed(v)]
    if bad or not values:
        raise argparse.ArgumentTypeError(f"not allowed: {', '.join(bad) or '(empty)'}")
    return values


async def main_async(args: argparse.Namespace) -> list[Result]:
    folder = Path(tempfile.mkdtemp(prefix="platform-bench-"))
    packs = folder / "packs"
    write_pack(packs)
    print(f"platform benchmark: {args.learners} learners (think {THINK_S:g} s), {args.seconds:g} s per configuration, "
          f"{' and '.join(args.database)}, code at {', '.join(str(r) for r in args.bot_root)}, "
          f"CPUs {os.cpu_count()}, load average {'/'.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}; logs in {folder}", flush=True)  # fmt: skip
    results: list[Result] = []
    service: Service | None = None
    try:
        for sandbox in args.sandbox:
            if sandbox == "service":
                service = Service(folder / "sandbox-service.log", workers=2, queue=16)
                await asyncio.to_thread(service.wait_ready)
            for processes, platform, database in itertools.product(args.processes, args.only, args.database):
                balances = args.balance if platform == "slack" and processes > 1 else ["roundrobin"]
                # each checkout in turn, configuration by configuration: A, B, A, B ... (--bot-root, --repeat)
                for balance, _, root in itertools.product(balances, range(args.repeat), args.bot_root):
                    result = await run_config(
                        platform, processes, sandbox, seconds=args.seconds, learners=args.learners, folder=folder,
                        packs=packs, service_url=service.url if service else None, balance=balance,
                        database=database, bot_root=root, warmup=args.warmup,
                    )  # fmt: skip
                    print_result(result)
                    results.append(result)
            if service is not None:
                service.stop()
                service = None
    finally:
        if service is not None:
            service.stop()
    summary_table(results)
    if args.jobs > 0:
        await sandbox_jobs(folder, args.jobs, 4)
    print(f"\nfinished {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}; "
          f"load average {'/'.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)  # fmt: skip
    return results


def main(argv: list[str] | None = None) -> list[Result]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the learners answer, per configuration")
    parser.add_argument("--learners", type=int, default=500)
    parser.add_argument("--only", type=lambda s: parse_list(s, lambda v: v in ("slack", "discord")), default=["slack", "discord"])
    parser.add_argument("--processes", type=lambda s: [int(v) for v in parse_list(s, lambda v: v in ("1", "2"))], default=[1, 2])
    parser.add_argument("--sandbox", type=lambda s: parse_list(s, lambda v: v in ("local", "service")), default=["local", "service"])
    parser.add_argument(
        "--balance", type=lambda s: parse_list(s, lambda v: v in ("roundrobin", "sticky")), default=["roundrobin"],
        help="Slack with two processes: round robin per request, and/or sticky (each learner to one process)",
    )  # fmt: skip
    parser.add_argument("--jobs", type=int, default=100, help="sandbox jobs for the jobs/s measure (0: skip it)")
    parser.add_argument("--think", type=float, default=0.0, help="seconds a learner reads an item before answering (0.5-1.5x; 0: flat out)")
    parser.add_argument(
        "--database", type=lambda s: parse_list(s, lambda v: v in ("postgresql", "sqlite")), default=["postgresql"],
        help="a fresh PostgreSQL database on 127.0.0.1:5432, and/or a fresh SQLite file",
    )  # fmt: skip
    parser.add_argument(
        "--bot-root", type=lambda s: [Path(v).resolve() for v in parse_list(s, lambda v: (Path(v) / "bot").is_dir())],
        default=[ROOT], help="checkouts whose code the bot processes run, in turn (default: this one)",
    )  # fmt: skip
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds left out of the CPU per answer at the start")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each configuration per checkout, alternating")
    parser.add_argument("--log-level", choices=["DEBUG", "INFO", "WARNING", "ERROR"], default="WARNING", help="the bot processes' log level")
    args = parser.parse_args(argv)
    global THINK_S, BOT_LOG_LEVEL
    THINK_S = max(0.0, args.think)
    BOT_LOG_LEVEL = args.log_level
    if not 1 <= args.learners <= 5000 or not 0 < args.seconds <= 600 or not 1 <= args.repeat <= 20:
        parser.error("--learners must be 1-5000, --seconds 0-600 and --repeat 1-20")
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
