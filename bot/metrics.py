"""Measure the bot with prometheus-client and serve ``/metrics``, ``/healthz`` and ``/readyz``.

Series (all prefixed ``quizbot_``): ``answers_total{platform,outcome}`` (correct / wrong, counted when
the attempt is stored), ``requests_total{platform,request,outcome}`` (ok / refused / error),
``interaction_seconds{platform,request}`` (from the core receiving a request to its reply),
``sandbox_jobs_total{status}``, ``sandbox_job_seconds``, ``sandbox_inflight``, ``database_errors_total``
and ``scheduler_lag_seconds`` (0 until a scheduler reports it). Each :class:`Metrics` has its own
registry, so several bots in one test process do not collide.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from .core.errors import QuizError
from .core.ports import CodeRunner, Conflict, RunOutcome, RunRequest

log = logging.getLogger(__name__)

LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
JOB_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
READY_TIMEOUT_S = 3.0


class Metrics:
    """The bot's series, in a registry of their own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.answers = Counter("quizbot_answers", "Answers stored, by platform and outcome.", ["platform", "outcome"], registry=r)
        self.requests = Counter(
            "quizbot_requests", "Requests handled by the core, by platform, type and outcome.",
            ["platform", "request", "outcome"], registry=r,
        )  # fmt: skip
        self.latency = Histogram(
            "quizbot_interaction_seconds", "Time from the core receiving a request to its reply.",
            ["platform", "request"], buckets=LATENCY_BUCKETS, registry=r,
        )  # fmt: skip
        self.jobs = Counter("quizbot_sandbox_jobs", "Sandbox jobs, by result status.", ["status"], registry=r)
        self.job_seconds = Histogram(
            "quizbot_sandbox_job_seconds", "Time of one sandbox job, queue included.", buckets=JOB_BUCKETS, registry=r
        )
        self.sandbox_inflight = Gauge("quizbot_sandbox_inflight", "Sandbox jobs running or waiting.", registry=r)
        self.db_errors = Counter("quizbot_database_errors", "Database operations that failed.", registry=r)
        self.scheduler_lag = Gauge(
            "quizbot_scheduler_lag_seconds", "How late the scheduler runs its due jobs (0: none wired).", registry=r
        )

    def exposition(self) -> bytes:
        """Return the text exposition of every series."""
        return generate_latest(self.registry)


def instrument_service(service: Any, metrics: Metrics) -> None:
    """Time every ``service.handle`` call and count it by outcome (wraps the bound method)."""
    handle: Callable[[Any, Any], Awaitable[Any]] = service.handle

    async def timed(actor: Any, request: Any) -> Any:
        platform, kind = str(actor.platform), type(request).__name__
        started = time.perf_counter()
        outcome = "error"
        try:
            reply = await handle(actor, request)
            outcome = "ok"
            return reply
        except QuizError:
            outcome = "refused"
            raise
        finally:
            metrics.latency.labels(platform=platform, request=kind).observe(time.perf_counter() - started)
            metrics.requests.labels(platform=platform, request=kind, outcome=outcome).inc()

    service.handle = timed


def instrument_repository(repository: Any, metrics: Metrics) -> None:
    """Count stored answers by platform and outcome, and failed saves (wraps ``save_session``)."""
    save: Callable[..., Awaitable[None]] = repository.save_session

    async def counted(session: Any, attempt: Any = None, review: Any = None) -> None:
        try:
            await save(session, attempt, review)
        except Conflict:
            raise
        except Exception:
            metrics.db_errors.inc()
            raise
        if attempt is not None:
            metrics.answers.labels(platform=str(attempt.platform), outcome="correct" if attempt.correct else "wrong").inc()

    repository.save_session = counted


class MeteredRunner:
    """A CodeRunner that counts and times the jobs of another."""

    def __init__(self, inner: CodeRunner, metrics: Metrics) -> None:
        self.inner = inner
        self._metrics = metrics

    @property
    def max_code_bytes(self) -> int:
        return self.inner.max_code_bytes

    async def run(self, request: RunRequest) -> RunOutcome:
        m = self._metrics
        m.sandbox_inflight.inc()
        started = time.perf_counter()
        status = "crashed"
        try:
            outcome = await self.inner.run(request)
            status = outcome.status
            return outcome
        finally:
            m.sandbox_inflight.dec()
            m.jobs.labels(status=status).inc()
            m.job_seconds.observe(time.perf_counter() - started)

    async def ready(self) -> bool:
        """Return whether the runner below can take a job now."""
        return await runner_ready(self.inner)

    async def close(self) -> None:
        await self.inner.close()


async def runner_ready(runner: Any) -> bool:
    """Return a runner's readiness: its ``ready`` (a property or coroutine method), else True."""
    ready = getattr(runner, "ready", None)
    if ready is None:
        return True
    value = ready() if callable(ready) else ready
    if asyncio.iscoroutine(value):
        value = await value
    return bool(value)


Check = Callable[[], Awaitable[str | None]]


def health_app(metrics: Metrics, checks: dict[str, Check]) -> web.Application:
    """Return the aiohttp app: ``/metrics``; ``/healthz`` (alive); ``/readyz`` (every check passes).

    A check returns None when its part is ready, else a short reason (never a secret).
    """

    async def metrics_view(request: web.Request) -> web.Response:
        return web.Response(body=metrics.exposition(), headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def alive(request: web.Request) -> web.Response:
        return web.json_response({"status": "alive"})

    async def ready(request: web.Request) -> web.Response:
        found: dict[str, str] = {}
        for name, check in checks.items():
            try:
                problem = await asyncio.wait_for(check(), READY_TIMEOUT_S)
            except TimeoutError:
                problem = "no answer in time"
            except Exception as exc:  # a check that breaks is a part that is not ready
                problem = type(exc).__name__
            found[name] = problem or "ready"
        ok = all(v == "ready" for v in found.values())
        return web.json_response({"status": "ready" if ok else "not ready", "checks": found}, status=200 if ok else 503)

    app = web.Application(client_max_size=1024)
    app.router.add_get("/metrics", metrics_view)
    app.router.add_get("/healthz", alive)
    app.router.add_get("/readyz", ready)
    return app


async def start_health_server(app: web.Application, host: str, port: int) -> web.AppRunner:
    """Start serving ``app``; the caller cleans the returned runner up."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    log.info("metrics and health on http://%s:%d/metrics", host, port)
    return runner
