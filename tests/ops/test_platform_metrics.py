"""Latency from the platforms' events, active quizzes, queue depth, scheduler lag and platforms in /readyz.

Slack is driven by signed HTTP requests (FakeSlack answers the Web API), Discord through discord.py's
own gateway parsers (and once over FakeDiscord's real gateway); the series are read from /metrics
as Prometheus exposes them.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

from bot.adapters.discord import create_client
from bot.adapters.discord.api import use_api
from bot.adapters.slack import run_slack
from bot.app import App
from bot.core import QuizService
from bot.core import requests as rq
from bot.core.daily import DailyService
from bot.core.model import Actor
from bot.core.packs import load_path
from bot.core.ports import RunRequest
from bot.metrics import (
    MeteredRunner,
    Metrics,
    Timing,
    count_answer,
    count_faults,
    health_app,
    watch_active_quizzes,
)
from bot.runner import readiness_checks
from bot.sandbox_client import SandboxRunner
from bot.scheduler import Scheduler
from bot.settings import Settings
from bot.storage import SqlRepository, open_repository
from sandbox import SandboxConfig
from tests.conftest import DEMO_PACK
from tests.daily.support import FakePoster, open_stores, postgres_url
from tests.discord import payloads as p
from tests.discord.conftest import Harness, settings_for
from tests.discord.fake_discord import BOT_TOKEN as DISCORD_TOKEN
from tests.discord.fake_discord import FakeDiscord
from tests.fakes import FakeClock, LocalRunner
from tests.ops.services import free_port, uid_base
from tests.slack.conftest import (
    APP_TOKEN,
    BOT_TOKEN,
    CHANNEL,
    LEARNER,
    SIGNING_SECRET,
    STRANGER,
    Slack,
    block_text,
    dm,
    make_service,
)
from tests.slack.fake_slack import FakeSlack
from tests.slack.helpers import SOLUTION, WRONG, items

TTL = timedelta(hours=24)


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of an exposition, read with prometheus-client's own parser."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return found


def value(text: str, name: str, **labels: str) -> float:
    key = (name, frozenset(labels.items()))
    got = samples(text)
    assert key in got, f"{name}{labels} is not exposed"
    return got[key]


def total(text: str, name: str) -> float:
    return sum(v for (n, _), v in samples(text).items() if n == name)


async def fetch(app: Any, path: str) -> tuple[int, str]:
    async with TestClient(TestServer(app)) as client:
        response = await client.get(path)
        return response.status, await response.text()


def metered_service(repository: SqlRepository, runner: LocalRunner, clock: FakeClock, metrics: Metrics) -> tuple[QuizService, MeteredRunner]:
    metered = MeteredRunner(runner, metrics)
    service = make_service(repository, metered, clock)  # type: ignore[arg-type]
    count_faults(service.faults, metrics)
    service.answers.count_with(count_answer(metrics))  # every mode's answers, where they are recorded
    service.use(Timing(metrics))
    watch_active_quizzes(metrics, repository.engine, clock, TTL, cache_s=0)
    return service, metered


async def test_slack_requests_are_timed_to_their_ack_and_reply_and_active_quizzes_counted(
    open_slack: Any, fake: FakeSlack, repository: SqlRepository, runner: LocalRunner, clock: FakeClock, db_url: str
) -> None:
    metrics = Metrics()
    service, metered = metered_service(repository, runner, clock, metrics)
    await service.import_pack(load_path(DEMO_PACK).pack)
    sent = 0
    async with open_slack(service, metrics) as slack:
        channel = dm(LEARNER)
        assert (await slack.command("start demo difficulty:hard count:1"))[0] == 200  # the code item
        item = items(slack, channel)[-1]
        await slack.click(channel, item["ts"], label="Answer")  # opens the answer form
        await slack.submit(slack.last_view(), {"answer": WRONG})
        await slack.message(f"```python\n{SOLUTION}```")  # right: the quiz is finished
        assert "*1 of 1 right*" in block_text(slack.fake.posts(channel)[-1]["blocks"])
        await slack.command("start demo count:2", user=STRANGER)
        other = items(slack, dm(STRANGER))[-1]
        await slack.click(dm(STRANGER), other["ts"], label="Skip", user=STRANGER)  # still one item to go
        await slack.message("just chatting", channel=CHANNEL)  # nothing to answer in a channel: acked, no reply
        sent = 7
        status, _ = await slack.send("payload=%7B%7D", "application/x-www-form-urlencoded", secret="not-the-secret")
        assert status == 401  # refused before Bolt: no ack of ours, nothing timed
    app = App(settings=Settings(database_url=db_url), repository=repository, service=service, runner=metered, metrics=metrics)
    status, text = await fetch(health_app(metrics, readiness_checks(app)), "/metrics")
    assert status == 200
    counts = {kind: value(text, "quizbot_ack_seconds_count", platform="slack", request=kind) for kind in ("command", "action", "form", "message")}
    assert counts == {"command": 2, "action": 2, "form": 1, "message": 2}
    assert total(text, "quizbot_ack_seconds_count") == sent  # one ack per request Slack sent
    replies = {kind: value(text, "quizbot_reply_seconds_count", platform="slack", request=kind) for kind in counts}
    assert replies == {"command": 2, "action": 2, "form": 1, "message": 1}  # all answered but the chatter
    assert value(text, "quizbot_reply_seconds_bucket", platform="slack", request="message", le="+Inf") == 1
    assert value(text, "quizbot_active_quizzes") == 1  # the stranger's; the learner's is finished
    assert value(text, "quizbot_sandbox_queue_depth") == 0
    assert value(text, "quizbot_sandbox_jobs_total", status="passed") == 1
    assert value(text, "quizbot_interaction_seconds_count", platform="slack", request="Start") == 2  # the core's own, kept


async def test_discord_interactions_are_timed_to_the_callback_and_the_delivered_answer(
    fake_discord: FakeDiscord, db_url: str, runner: LocalRunner, clock: FakeClock
) -> None:
    metrics = Metrics()
    repository = await open_repository(db_url)
    service = QuizService(repository=repository, runner=runner, clock=clock, rng=random.Random(7))
    await service.import_pack(load_path(DEMO_PACK).pack)
    watch_active_quizzes(metrics, repository.engine, clock, TTL, cache_s=0)
    settings = settings_for(fake_discord, db_url)
    use_api(fake_discord.api_url)
    app = App(settings=settings, repository=repository, service=service, runner=runner, metrics=metrics)  # type: ignore[arg-type]
    client = create_client(app, settings)
    try:
        await client.login(DISCORD_TOKEN)
        bot = Harness(fake_discord, client, service)
        start = await bot.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("difficulty", "hard")])
        assert "Define `total`" in start.item()["embeds"][0]["description"]
        code = f"```python\n{SOLUTION}```"
        graded = await bot.event("MESSAGE_CREATE", p.message_create(p.ALICE, code, channel_id=p.ALICE.dm_channel, guild=False))
        assert "2 of 2 tests passed" in graded.text()
        chatter = await bot.event("MESSAGE_CREATE", p.message_create(p.BOB, "hello", channel_id=p.BOB.dm_channel, guild=False))
        assert chatter.calls == []  # not an answer: nothing delivered, nothing timed
        other = await bot.command(p.BOB, "start", [p.option("pack", "demo"), p.option("count", 2)])
        skipped = await bot.click(p.BOB, other.item(), "Skip")
        assert "Skipped" in skipped.text()
        bot.assert_all_acknowledged()
        status, text = await fetch(health_app(metrics, readiness_checks(app)), "/metrics")
    finally:
        await client.close()
        await repository.close()
    assert status == 200
    assert value(text, "quizbot_ack_seconds_count", platform="discord", request="command") == 2
    assert value(text, "quizbot_ack_seconds_count", platform="discord", request="action") == 1
    assert total(text, "quizbot_ack_seconds_count") == len(bot.seen) == 3  # one callback per interaction
    assert value(text, "quizbot_reply_seconds_count", platform="discord", request="command") == 2
    assert value(text, "quizbot_reply_seconds_count", platform="discord", request="action") == 1
    assert value(text, "quizbot_reply_seconds_count", platform="discord", request="message") == 1  # the graded code
    assert ("quizbot_ack_seconds_count", frozenset({("platform", "discord"), ("request", "message")})) not in samples(text)
    assert value(text, "quizbot_active_quizzes") == 1  # Bob's; Alice's is finished


async def test_discord_readiness_follows_the_gateway_and_gateway_events_are_timed(
    fake_discord: FakeDiscord, db_url: str, runner: LocalRunner, clock: FakeClock
) -> None:
    metrics = Metrics()
    repository = await open_repository(db_url)
    service = QuizService(repository=repository, runner=runner, clock=clock)
    settings = settings_for(fake_discord, db_url)
    use_api(fake_discord.api_url)
    app = App(settings=settings, repository=repository, service=service, runner=runner, metrics=metrics)  # type: ignore[arg-type]
    app.platforms.expect(["discord"])
    health = health_app(metrics, readiness_checks(app))

    try:
        await gateway_readiness(fake_discord, app, health)
    finally:
        await repository.close()


async def gateway_readiness(fake_discord: FakeDiscord, app: App, health: Any) -> None:
    async def readiness() -> tuple[int, dict[str, str]]:
        status, text = await fetch(health, "/readyz")
        return status, json.loads(text)["checks"]

    assert await readiness() == (503, {"database": "ready", "platforms": "discord not connected", "sandbox": "ready"})
    client = create_client(app, app.settings)
    assert await readiness() == (503, {"database": "ready", "platforms": "discord not connected", "sandbox": "ready"})
    task = asyncio.create_task(client.start(DISCORD_TOKEN))
    try:
        async def until_ready() -> None:
            while (await readiness())[0] != 200:
                await asyncio.sleep(0.1)

        await asyncio.wait_for(until_ready(), 30)
        assert await readiness() == (200, {"database": "ready", "platforms": "ready", "sandbox": "ready"})
        payload = p.interaction(2, p.command("help"), p.ALICE)
        fake_discord.interactions[payload["id"]] = payload
        await fake_discord.dispatch("INTERACTION_CREATE", payload)  # over the gateway's websocket

        async def until_replied() -> None:
            while total((await fetch(health, "/metrics"))[1], "quizbot_reply_seconds_count") < 1:
                await asyncio.sleep(0.05)

        await asyncio.wait_for(until_replied(), 30)
        assert len(fake_discord.callbacks(payload["id"])) == 1
        text = (await fetch(health, "/metrics"))[1]
        assert value(text, "quizbot_ack_seconds_count", platform="discord", request="command") == 1
        assert value(text, "quizbot_reply_seconds_count", platform="discord", request="command") == 1
    finally:
        await client.close()
        await asyncio.gather(task, return_exceptions=True)
    assert await readiness() == (503, {"database": "ready", "platforms": "discord not connected", "sandbox": "ready"})


async def test_active_quizzes_count_every_process_sharing_postgresql(runner: LocalRunner, clock: FakeClock) -> None:
    async with postgres_url() as url:
        await count_across_processes(url, runner, clock)


async def count_across_processes(url: str, runner: LocalRunner, clock: FakeClock) -> None:
    one, two = await open_repository(url), await open_repository(url)
    try:
        first = QuizService(repository=one, runner=runner, clock=clock)
        second = QuizService(repository=two, runner=runner, clock=clock)
        await first.import_pack(load_path(DEMO_PACK).pack)
        metrics = Metrics()
        watch_active_quizzes(metrics, one.engine, clock, TTL, cache_s=0)
        ann, ben, cy = (Actor("slack", "T1", user, user.title()) for user in ("ann", "ben", "cy"))
        await first.handle(ann, rq.Start(pack="demo"))
        await second.handle(ben, rq.Start(pack="demo"))
        await second.handle(cy, rq.Start(pack="demo"))

        async def active() -> float:
            return value((await fetch(health_app(metrics, {}), "/metrics"))[1], "quizbot_active_quizzes")

        assert await active() == 3  # two of them started by the other process
        await second.handle(ann, rq.Stop())  # stopped through the other process
        assert await active() == 2
        clock.advance(hours=25)  # untouched for longer than the session TTL: expired, not active
        assert await active() == 0
    finally:
        await one.close()
        await two.close()


async def test_the_scheduler_reports_how_late_it_began_a_due_job(tmp_path: Any) -> None:
    stores = await open_stores(f"sqlite+aiosqlite:///{tmp_path / 'lag.db'}")
    try:
        clock = FakeClock(datetime(2026, 3, 25, 6, 0, tzinfo=UTC))  # the post falls due at 08:00 UTC
        poster = FakePoster()
        metrics = Metrics()
        lags: list[float] = []

        def on_lag(seconds: float) -> None:
            lags.append(seconds)
            metrics.scheduler_lag.set(seconds)

        scheduler = Scheduler(store=stores.daily, packs=stores.repo, clock=clock, poster=poster, max_sleep_s=86_400, on_lag=on_lag)
        daily = DailyService(store=stores.daily, packs=stores.repo, clock=clock, wake=scheduler.wake)
        admin = Actor("discord", "g1", "admin", "Admin", is_admin=True)
        await daily.set_schedule(admin, channel_id="c1", time="09:00", timezone="Europe/Berlin", pack="demo")

        class Stop(Exception):
            pass

        async def oversleep(seconds: float) -> None:
            if poster.of("post"):
                raise Stop
            clock.advance(seconds=seconds + 7)  # a busy host: woken 7 s after the job fell due

        scheduler._sleep = oversleep
        with pytest.raises(Stop):
            await scheduler.run()
        assert lags == [0.0, 7.0]  # nothing was due before the first tick; then the post, 7 s late
        posted = (await stores.daily.posts("discord", "c1"))[0].posted_at
        assert posted == datetime(2026, 3, 25, 8, 0, 7, tzinfo=UTC)
        text = metrics.exposition().decode()
        assert re.search(r"^quizbot_scheduler_lag_seconds 7\.0$", text, re.MULTILINE)
    finally:
        await stores.close()


async def test_queue_depth_counts_jobs_waiting_for_the_pool_to_start_and_for_a_worker() -> None:
    pool = SandboxRunner(SandboxConfig(workers=1, queue=2, wall_s=5.0, cpu_s=5.0, memory_mb=256, warm_optimizers=False))
    metrics = Metrics()
    runner = MeteredRunner(pool, metrics)

    def depth() -> float:
        return value(metrics.exposition().decode(), "quizbot_sandbox_queue_depth")

    sleeper = "import time\ntime.sleep(2)\nprint('done')\n"
    try:
        assert depth() == 0
        jobs = [asyncio.create_task(runner.run(RunRequest(sleeper, owner=f"slack:u{n}"))) for n in range(3)]
        await asyncio.sleep(0)
        assert depth() == 3  # all three wait for the pool to start

        async def until_one_runs() -> None:
            while depth() != 2:
                await asyncio.sleep(0.05)

        await asyncio.wait_for(until_one_runs(), 180)  # one job on the only worker, two in its queue
        outcomes = await asyncio.gather(*jobs)
        assert [o.status for o in outcomes] == ["passed"] * 3
        assert depth() == 0
        assert value(metrics.exposition().decode(), "quizbot_sandbox_jobs_total", status="passed") == 3
    finally:
        await runner.close()


@pytest.mark.parametrize("mode", ["http", "socket"])
async def test_slack_readiness_and_timing_as_quizbot_run_serves_it(
    mode: str, fake: FakeSlack, repository: SqlRepository, runner: LocalRunner, clock: FakeClock
) -> None:
    service = make_service(repository, runner, clock)
    await service.import_pack(load_path(DEMO_PACK).pack)
    secrets: dict[str, Any] = {"slack_app_token": SecretStr(APP_TOKEN)} if mode == "socket" else {"slack_signing_secret": SecretStr(SIGNING_SECRET)}
    settings = Settings(slack_bot_token=SecretStr(BOT_TOKEN), slack_api_url=fake.api_url, **secrets)
    metrics = Metrics()
    app = App(settings=settings, repository=repository, service=service, runner=runner, metrics=metrics)  # type: ignore[arg-type]
    app.platforms.expect(["slack"])
    health = health_app(metrics, readiness_checks(app))

    async def platforms() -> str:
        return str(json.loads((await fetch(health, "/readyz"))[1])["checks"]["platforms"])

    async def connected() -> bool:
        return await platforms() == "ready"

    async def replied() -> bool:
        return total((await fetch(health, "/metrics"))[1], "quizbot_reply_seconds_count") > 0

    async def until(check: Callable[[], Awaitable[bool]]) -> None:
        async def poll() -> None:
            while not await check():
                await asyncio.sleep(0.05)

        await asyncio.wait_for(poll(), 30)

    assert await platforms() == "slack not connected"
    port = free_port()
    task = asyncio.create_task(run_slack(app, settings, port=port, host="127.0.0.1"))
    try:
        await until(connected)
        if mode == "socket":
            payload = {
                "team_id": "T0001", "channel_id": dm(LEARNER), "user_id": LEARNER, "user_name": "learner", "command": "/quiz",
                "text": "start demo count:1", "api_app_id": "A0001", "response_url": fake.response_url(), "trigger_id": "7.7.7",
            }  # fmt: skip
            await fake.socket_send({"envelope_id": "env-1", "type": "slash_commands", "accepts_response_payload": True, "payload": payload})
            await fake.wait_for(lambda: [m for m in fake.socket_received if m.get("envelope_id") == "env-1"])
        else:
            async with aiohttp.ClientSession() as http:
                status, _ = await Slack(http, f"http://127.0.0.1:{port}/slack/events", fake, None).command("start demo count:1")
            assert status == 200
        await until(replied)
        assert fake.posts(dm(LEARNER))  # the quiz's first item
        text = (await fetch(health, "/metrics"))[1]
        assert value(text, "quizbot_ack_seconds_count", platform="slack", request="command") == 1
        assert value(text, "quizbot_reply_seconds_count", platform="slack", request="command") == 1
        assert value(text, "quizbot_active_quizzes") == 0  # not watched here: build() does that for quizbot run
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert await platforms() == "slack not connected"



async def test_quizbot_run_exposes_the_traffic_it_served(tmp_path: Any) -> None:
    """`quizbot run` (Slack HTTP mode, real pool, SQLite) as an operator starts it, scraped over HTTP."""
    fake = FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN, team="T0001")
    await fake.start()
    port, metrics_port = free_port(), free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "SLACK_", "DISCORD_"))},
        "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET, "SLACK_API_URL": fake.api_url,
        "SLACK_PORT": str(port), "QUIZBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}",
        "QUIZBOT_PACKS": str(DEMO_PACK), "QUIZBOT_METRICS_PORT": str(metrics_port), "QUIZBOT_METRICS_HOST": "127.0.0.1",
        "QUIZBOT_SANDBOX_WORKERS": "1", "QUIZBOT_SANDBOX_MEMORY_MB": "256", "QUIZBOT_SANDBOX_WARM_OPTIMIZERS": "false",
        "QUIZBOT_SANDBOX_UID_BASE": str(uid_base(port)),
    }  # fmt: skip
    log_path = tmp_path / "bot.log"
    with log_path.open("wb") as log:
        bot = await asyncio.create_subprocess_exec(
            sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main(['run']))",
            cwd=tmp_path, env=env, stdout=log, stderr=log,
        )  # fmt: skip
    url = f"http://127.0.0.1:{metrics_port}"

    async def scrape(path: str) -> tuple[int, str]:
        assert bot.returncode is None, log_path.read_text()
        try:
            async with aiohttp.ClientSession() as http, http.get(url + path) as response:
                return response.status, await response.text()
        except aiohttp.ClientError:
            return 0, ""

    async def until(check: Callable[[], Awaitable[bool]], timeout: float = 180) -> None:
        async def poll() -> None:
            while not await check():
                await asyncio.sleep(0.1)

        await asyncio.wait_for(poll(), timeout)

    async def ready() -> bool:
        return (await scrape("/readyz"))[0] == 200

    async def both_replied() -> bool:
        status, text = await scrape("/metrics")
        return status == 200 and total(text, "quizbot_reply_seconds_count") >= 2

    try:
        await until(ready)
        checks = json.loads((await scrape("/readyz"))[1])["checks"]
        assert checks == {"database": "ready", "platforms": "ready", "sandbox": "ready"}
        async with aiohttp.ClientSession() as http:
            slack = Slack(http, f"http://127.0.0.1:{port}/slack/events", fake, None)
            await slack.command("start demo count:2")
            await fake.wait_for(lambda: fake.posts(dm(LEARNER)), 30)
            await slack.message(f"```python\n{SOLUTION}```")  # graded, or told the item is not code: answered
            await until(both_replied, 60)
        text = (await scrape("/metrics"))[1]
        assert value(text, "quizbot_ack_seconds_count", platform="slack", request="command") == 1
        assert value(text, "quizbot_ack_seconds_count", platform="slack", request="message") == 1
        assert value(text, "quizbot_reply_seconds_count", platform="slack", request="command") == 1
        assert value(text, "quizbot_reply_seconds_count", platform="slack", request="message") == 1
        assert value(text, "quizbot_active_quizzes") == 1  # counted by the watcher build() sets up
        assert value(text, "quizbot_sandbox_queue_depth") == 0
        assert value(text, "quizbot_scheduler_lag_seconds") == 0
    finally:
        if bot.returncode is None:
            bot.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(bot.wait(), 60)
            except TimeoutError:
                bot.kill()
                await bot.wait()
        await fake.close()


def test_the_docs_list_every_series_the_bot_exposes() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "operators" / "monitoring.md").read_text()
    section = page[page.index("`QUIZBOT_METRICS_PORT=9100`") : page.index("`QUIZBOT_LOG_FORMAT=json` writes")]
    listed = set(re.findall(r"`(quizbot_[a-z_]+)", section))
    exposed = {f"{f.name}_total" if f.type == "counter" else f.name for f in Metrics().registry.collect()}
    assert exposed <= listed, f"not in docs/operators/monitoring.md: {exposed - listed}"
    assert listed - exposed == {"quizbot_sandbox_service_inflight"}  # the sandbox service's own, named as such
