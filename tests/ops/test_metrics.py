"""/metrics, /healthz and /readyz of the bot, and JSON-lines logs with secrets redacted."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Callable
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from bot.app import App
from bot.core.packs import load_path
from bot.logs import JsonLines, RedactSecrets
from bot.metrics import MeteredRunner, Metrics, Timing, count_answer, count_faults, health_app
from bot.runner import readiness_checks
from bot.sandbox_client import SandboxRunner
from bot.settings import Settings
from bot.storage import SqlRepository
from sandbox import SandboxConfig
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock, LocalRunner
from tests.slack.conftest import LEARNER, block_text, dm, make_service
from tests.slack.helpers import SOLUTION, WRONG


def value(text: str, series: str) -> float:
    match = re.search(rf"^{re.escape(series)} (\S+)$", text, re.MULTILINE)
    assert match, f"{series} is not exposed"
    return float(match.group(1))


async def fetch(app: Any, path: str) -> tuple[int, str]:
    async with TestClient(TestServer(app)) as client:
        response = await client.get(path)
        return response.status, await response.text()


async def test_metrics_count_answers_requests_and_sandbox_jobs(
    open_slack: Callable[[Any], Any], repository: SqlRepository, runner: LocalRunner, clock: FakeClock, db_url: str
) -> None:
    metrics = Metrics()
    metered = MeteredRunner(runner, metrics)
    service = make_service(repository, metered, clock)  # type: ignore[arg-type]
    count_faults(service.faults, metrics)
    service.answers.count_with(count_answer(metrics))  # every mode's answers, where they are recorded
    service.use(Timing(metrics))
    await service.import_pack(load_path(DEMO_PACK).pack)
    async with open_slack(service) as slack:
        await slack.command("start demo difficulty:hard count:1")
        await slack.message(f"```python\n{WRONG}```")
        await slack.message(f"```python\n{SOLUTION}```")
        assert "*1 of 1 right*" in block_text(slack.fake.posts(dm(LEARNER))[-1]["blocks"])
    app = App(settings=Settings(database_url=db_url), repository=repository, service=service, runner=metered, metrics=metrics)
    status, text = await fetch(health_app(metrics, readiness_checks(app)), "/metrics")
    assert status == 200
    assert value(text, 'quizbot_answers_total{outcome="correct",platform="slack"}') == 1
    assert value(text, 'quizbot_answers_total{outcome="wrong",platform="slack"}') == 1
    assert value(text, 'quizbot_sandbox_jobs_total{status="passed"}') == 1
    assert value(text, 'quizbot_sandbox_jobs_total{status="failed"}') == 1
    assert value(text, "quizbot_sandbox_job_seconds_count") == 2
    assert value(text, "quizbot_sandbox_inflight") == 0
    assert value(text, 'quizbot_interaction_seconds_count{platform="slack",request="Start"}') == 1
    assert value(text, 'quizbot_requests_total{outcome="ok",platform="slack",request="Submit"}') == 2
    assert value(text, "quizbot_scheduler_lag_seconds") == 0
    assert value(text, "quizbot_database_errors_total") == 0
    assert await fetch(health_app(metrics, readiness_checks(app)), "/healthz") == (200, '{"status": "alive"}')
    status, text = await fetch(health_app(metrics, readiness_checks(app)), "/readyz")
    assert status == 200 and json.loads(text)["checks"] == {"database": "ready", "platforms": "ready", "sandbox": "ready"}


async def test_readyz_is_503_until_the_sandbox_pool_has_started(repository: SqlRepository, db_url: str) -> None:
    pool = SandboxRunner(SandboxConfig(workers=1))  # never started: its template is not warm
    metrics = Metrics()
    app = App(settings=Settings(database_url=db_url), repository=repository, service=None, runner=MeteredRunner(pool, metrics), metrics=metrics)  # type: ignore[arg-type]
    status, text = await fetch(health_app(metrics, readiness_checks(app)), "/readyz")
    assert status == 503 and json.loads(text)["checks"] == {"database": "ready", "platforms": "ready", "sandbox": "starting"}
    await pool.close()  # a shutdown: the pool is stopping, not starting
    status, text = await fetch(health_app(metrics, readiness_checks(app)), "/readyz")
    assert status == 503 and json.loads(text)["checks"]["sandbox"] == "stopped"


def test_json_lines_logs_keep_secrets_out() -> None:
    secret = "quizbot-sandbox-token-9d2f"
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonLines())
    handler.addFilter(RedactSecrets([secret]))
    logger = logging.getLogger("tests.ops.jsonlines")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("service %s refused token %s", "http://s1", secret)
        try:
            raise RuntimeError(f"bad token {secret}")
        except RuntimeError:
            logger.exception("failed with xoxb-1234-5678-abcdefghijkl")
    finally:
        logger.removeHandler(handler)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["message"] == "service http://s1 refused token [redacted]" and first["level"] == "WARNING"
    assert first["logger"] == "tests.ops.jsonlines" and first["time"].endswith("+00:00")
    assert secret not in stream.getvalue() and "xoxb-1234" not in stream.getvalue()
    assert "RuntimeError: bad token [redacted]" in second["message"]
