"""Measure the bot with prometheus-client and serve ``/metrics``, ``/healthz`` and ``/readyz``.

Series (all prefixed ``quizbot_``): ``answers_total{platform,outcome}`` (correct / wrong, counted when
the attempt is stored), ``requests_total{platform,request,outcome}`` (ok / refused / error),
``interaction_seconds{platform,request}`` (from the core receiving a request to its reply),
``ack_seconds{platform,request}`` and ``reply_seconds{platform,request}`` (from the adapter receiving
the platform's event to its acknowledgement, and to the last message of its answer delivered),
``active_quizzes`` (counted in the database at scrape time), ``sandbox_jobs_total{status}``,
``sandbox_job_seconds``, ``sandbox_inflight``, ``sandbox_queue_depth``, ``database_errors_total`` and
``scheduler_lag_seconds``. Each :class:`Metrics` has its own registry, so several bots in one test
process do not collide.

The adapters time an event with :func:`receiving` at its receipt, and call :func:`acked` and
:func:`replied` where the platform has its acknowledgement and its answer (or :func:`delivered` for
each message sent and :func:`finished` when the work ends); these find the event in a context
variable (tasks started while receiving it inherit it), so they do nothing without metrics.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import timedelta
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
from sqlalchemy import and_, func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from .core.errors import DatabaseFault, QuizError, Unavailable
from .core.faults import FaultLog
from .core.ports import Clock, CodeRunner, RunOutcome, RunRequest

log = logging.getLogger(__name__)

LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
JOB_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
READY_TIMEOUT_S = 3.0
ACTIVE_CACHE_S = 5.0  # how long a count of active quizzes is reused across scrapes


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
        self.ack_seconds = Histogram(
            "quizbot_ack_seconds", "Time from the adapter receiving a platform event to its acknowledgement.",
            ["platform", "request"], buckets=LATENCY_BUCKETS, registry=r,
        )  # fmt: skip
        self.reply_seconds = Histogram(
            "quizbot_reply_seconds", "Time from the adapter receiving a platform event to its answer delivered.",
            ["platform", "request"], buckets=LATENCY_BUCKETS, registry=r,
        )  # fmt: skip
        self.active_quizzes = Gauge(
            "quizbot_active_quizzes", "Quiz sessions active now, in the database (every process).", registry=r
        )
        self.jobs = Counter("quizbot_sandbox_jobs", "Sandbox jobs, by result status.", ["status"], registry=r)
        self.job_seconds = Histogram(
            "quizbot_sandbox_job_seconds", "Time of one sandbox job, queue included.", buckets=JOB_BUCKETS, registry=r
        )
        self.sandbox_inflight = Gauge("quizbot_sandbox_inflight", "Sandbox jobs running or waiting.", registry=r)
        self.sandbox_queue = Gauge(
            "quizbot_sandbox_queue_depth", "Sandbox jobs of this process waiting for a worker.", registry=r
        )
        self.db_errors = Counter("quizbot_database_errors", "Database operations that failed.", registry=r)
        self.scheduler_lag = Gauge(
            "quizbot_scheduler_lag_seconds", "How late the scheduler began its last due jobs.", registry=r
        )
        self._refreshers: list[Callable[[], Awaitable[None]]] = []
        self._series: dict[tuple[int, tuple[str, ...]], Any] = {}

    def series(self, metric: Any, *values: str) -> Any:
        """`metric.labels(*values)` (in its labels' order), looked up once: each call of `labels` takes a lock and
        checks the names again, five times a click. The label values are few (platforms, kinds, outcomes)."""
        key = (id(metric), values)
        found = self._series.get(key)
        if found is None:
            found = self._series[key] = metric.labels(*values)
        return found

    def refresh_with(self, refresher: Callable[[], Awaitable[None]]) -> None:
        """Run ``refresher`` before each exposition (a gauge read from elsewhere, e.g. the database)."""
        self._refreshers.append(refresher)

    async def refresh(self) -> None:
        for refresher in self._refreshers:
            await refresher()

    def exposition(self) -> bytes:
        """Return the text exposition of every series."""
        return generate_latest(self.registry)


# ----------------------------------------------------------------- platform events, at the adapters' edges


class Received:
    """One platform event's clock: from its receipt to the acknowledgement and to the answer, each once."""

    __slots__ = ("_acked", "_metrics", "_replied", "delivered", "platform", "request", "started")

    def __init__(self, metrics: Metrics, platform: str, request: str) -> None:
        self._metrics = metrics
        self.platform = platform
        self.request = request
        self.started = time.perf_counter()
        self._acked = self._replied = False
        self.delivered = False  # a message answering it went out (see `finished`)

    def ack(self) -> None:
        if not self._acked:
            self._acked = True
            self._metrics.series(self._metrics.ack_seconds, self.platform, self.request).observe(self._since())

    def reply(self) -> None:
        if not self._replied:
            self._replied = True
            self._metrics.series(self._metrics.reply_seconds, self.platform, self.request).observe(self._since())

    def _since(self) -> float:
        return time.perf_counter() - self.started


_received: ContextVar[Received | None] = ContextVar("quizbot_received", default=None)


@contextmanager
def receiving(metrics: Metrics | None, platform: str, request: str) -> Iterator[Received | None]:
    """Start an event's clock: what runs inside, and every task started inside, belongs to that event."""
    if metrics is None:
        yield None
        return
    event = Received(metrics, platform, request)
    token = _received.set(event)
    try:
        yield event
    finally:
        _received.reset(token)


def acked() -> None:
    """The platform has the acknowledgement of the event being handled (nothing outside one)."""
    event = _received.get()
    if event is not None:
        event.ack()


def replied() -> None:
    """The last message answering the event being handled is delivered (nothing outside one)."""
    event = _received.get()
    if event is not None:
        event.reply()


def delivered() -> None:
    """A message answering the event being handled went out; `finished` then observes its reply."""
    event = _received.get()
    if event is not None:
        event.delivered = True


def finished() -> None:
    """The work for the event being handled is done: its reply is observed if a message went out."""
    event = _received.get()
    if event is not None and event.delivered:
        event.reply()


# ----------------------------------------------------------------- gauges read when scraped


def watch_active_quizzes(
    metrics: Metrics, engine: AsyncEngine, clock: Clock, ttl: timedelta, *, cache_s: float = ACTIVE_CACHE_S
) -> None:
    """Keep ``quizbot_active_quizzes`` as the database counts them when scraped (reused for ``cache_s``).

    Active: status active and touched within the session TTL (an older one is expired at its next use).
    """
    from .storage.tables import sessions

    counted_at: list[float] = []
    s = sessions.c

    async def refresh() -> None:
        if counted_at and time.monotonic() - counted_at[0] < cache_s:
            return
        query = select(func.count()).select_from(sessions).where(
            and_(s.status == "active", s.updated_at >= clock.now() - ttl)
        )
        try:
            async with engine.connect() as connection:
                count = (await connection.execute(query)).scalar_one()
        except Exception as exc:  # the last count stays; /readyz names the database problem
            metrics.db_errors.inc()
            log.warning("could not count active quizzes (%s)", type(exc).__name__)
            return
        metrics.active_quizzes.set(count)
        counted_at[:] = [time.monotonic()]

    metrics.refresh_with(refresh)


def queue_depth(runner: Any) -> int:
    """Return how many jobs wait for a worker in a runner (its ``waiting``; 0 when it has none)."""
    return int(getattr(runner, "waiting", 0) or 0)


class Timing:
    """Middleware: time every request the core answers and count it by outcome (`QuizService.use`)."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    async def __call__(self, actor: Any, request: Any, next_: Callable[[], Awaitable[Any]]) -> Any:
        platform, kind = str(actor.platform), type(request).__name__
        started = time.perf_counter()
        outcome = "error"
        try:
            reply = await next_()
            outcome = "ok"
            return reply
        except Unavailable:  # the database failed it (counted by `count_faults`): not the person's doing
            raise
        except QuizError:
            outcome = "refused"
            raise
        finally:
            self._metrics.series(self._metrics.latency, platform, kind).observe(time.perf_counter() - started)
            self._metrics.series(self._metrics.requests, platform, kind, outcome).inc()


def count_faults(faults: FaultLog, metrics: Metrics) -> None:
    """Count every database fault the core meets (``database_errors_total``), each kind and each request alike."""

    def counted(fault: DatabaseFault) -> None:
        metrics.db_errors.inc()

    faults.count_with(counted)


def count_answer(metrics: Metrics) -> Callable[[Any], None]:
    """Return the counter `bot.core.answer.Answers` calls for every stored answer, in every mode."""

    def counted(attempt: Any) -> None:
        metrics.series(metrics.answers, str(attempt.platform), "correct" if attempt.correct else "wrong").inc()

    return counted


class MeteredRunner:
    """A CodeRunner that counts and times the jobs of another."""

    def __init__(self, inner: CodeRunner, metrics: Metrics) -> None:
        self.inner = inner
        self._metrics = metrics
        metrics.sandbox_queue.set_function(lambda: queue_depth(inner))

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
Probe = Callable[[], bool | Awaitable[bool]]


class Platforms:
    """The chat front ends of this process, and whether each is connected now (``/readyz``)."""

    def __init__(self) -> None:
        self.expected: tuple[str, ...] = ()
        self._probes: dict[str, Probe] = {}

    def expect(self, names: Iterable[str]) -> None:
        """Name the front ends this process runs: each must be attached and connected to be ready."""
        self.expected = tuple(names)

    def attach(self, name: str, probe: Probe) -> None:
        """Tell how to see whether a front end is connected (a function, plain or async)."""
        self._probes[name] = probe

    def detach(self, name: str, probe: Probe) -> None:
        if self._probes.get(name) is probe:
            del self._probes[name]

    async def problem(self) -> str | None:
        """Return None when every front end is connected, else which are not."""
        down = []
        for name in self.expected or sorted(self._probes):
            probe = self._probes.get(name)
            connected = probe() if probe is not None else False
            if not isinstance(connected, bool):
                connected = await connected
            if not connected:
                down.append(name)
        return None if not down else ", ".join(down) + " not connected"


def health_app(metrics: Metrics, checks: dict[str, Check]) -> web.Application:
    """Return the aiohttp app: ``/metrics``; ``/healthz`` (alive); ``/readyz`` (every check passes).

    A check returns None when its part is ready, else a short reason (never a secret).
    """

    async def metrics_view(request: web.Request) -> web.Response:
        await metrics.refresh()
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
