"""Serve the sandbox over HTTP: ``POST /v1/run``, ``/healthz``, ``/readyz`` and ``/metrics``.

::

    quizbot sandbox serve --host 0.0.0.0 --port 8060     # QUIZBOT_SANDBOX_TOKEN must be set

``POST /v1/run`` takes ``{"code": ..., "test": ..., "owner": ..., "limits": {"wall_s": ..., "memory_mb": ...}}``
with ``Authorization: Bearer <token>`` and answers the result JSON that ``quizbot sandbox run --json``
prints. Budgets are enforced before anything is parsed: the token (401), the body size (413), the queue
(429 with ``Retry-After``), then the JSON's nesting depth (400). The token is compared in constant time
and never logged. This module imports nothing of the bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import math
import re
import signal
import time
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

from .config import SandboxConfig
from .errors import SandboxError
from .result import STATUSES
from .runner import MAX_TEST_BYTES, Sandbox

log = logging.getLogger("sandbox.service")

RUN_PATH = "/v1/run"
MAX_DEPTH = 4  # {"limits": {...}} is two levels; anything deeper is not a job
FIELDS = frozenset({"code", "test", "owner", "limits"})
LIMIT_FIELDS = frozenset({"wall_s", "memory_mb"})
MAX_OWNER_CHARS = 200
INLINE_PARSE_BYTES = 16 * 1024
JOB_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
_TOKENS = re.compile(rb'[\[\]{}"\\]')
READ_TIMEOUT_S = 10.0
_BUSY = re.compile(r"^busy, try again in (\d+) s$")


def default_body_bytes(config: SandboxConfig) -> int:
    """Return the body cap: the longest code and test, each escaped at worst, plus room for the rest."""
    return 6 * (config.code_bytes + MAX_TEST_BYTES) + 64 * 1024


def json_depth(body: bytes) -> int:
    """Return the deepest nesting of arrays and objects in ``body`` without parsing it.

    One pass over the brackets, quotes and backslashes (linear in the body, whatever it holds):
    brackets inside strings do not count, and an escaped character never ends a string.
    """
    depth = deepest = 0
    in_string = False
    skip = -1
    for match in _TOKENS.finditer(body):
        at = match.start()
        if at == skip:
            continue
        char = body[at]
        if in_string:
            if char == 0x5C:  # backslash: the next byte is escaped
                skip = at + 1
            elif char == 0x22:
                in_string = False
        elif char == 0x22:
            in_string = True
        elif char in (0x7B, 0x5B):
            depth += 1
            deepest = max(deepest, depth)
        elif char in (0x7D, 0x5D):
            depth -= 1
    return deepest


class BadJob(ValueError):
    """The request body is not a job this service runs."""


def read_job(body: bytes) -> dict[str, Any]:
    """Return the job's keyword arguments for :meth:`Sandbox.run`, or raise :class:`BadJob`."""
    if json_depth(body) > MAX_DEPTH:
        raise BadJob("the JSON is nested too deeply")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise BadJob("the body is not JSON") from exc
    if not isinstance(data, dict):
        raise BadJob("the body must be a JSON object")
    unknown = set(data) - FIELDS
    if unknown:
        raise BadJob(f"unknown fields: {', '.join(sorted(unknown))}")
    code, test, owner = data.get("code"), data.get("test"), data.get("owner")
    if not isinstance(code, str):
        raise BadJob("code must be a string")
    if test is not None and not isinstance(test, str):
        raise BadJob("test must be a string or null")
    if owner is not None and (not isinstance(owner, str) or len(owner) > MAX_OWNER_CHARS):
        raise BadJob("owner must be a short string or null")
    limits = data.get("limits") or {}
    if not isinstance(limits, dict) or set(limits) - LIMIT_FIELDS:
        raise BadJob(f"limits may only hold {', '.join(sorted(LIMIT_FIELDS))}")
    wall_s, memory_mb = limits.get("wall_s"), limits.get("memory_mb")
    if wall_s is not None and (isinstance(wall_s, bool) or not isinstance(wall_s, int | float) or not math.isfinite(wall_s)):
        raise BadJob("limits.wall_s must be a number")
    if memory_mb is not None and (isinstance(memory_mb, bool) or not isinstance(memory_mb, int)):
        raise BadJob("limits.memory_mb must be an integer")
    return {"code": code, "test": test, "owner": owner, "wall_s": wall_s, "memory_mb": memory_mb}


class SandboxService:
    """One sandbox pool behind HTTP: admission, authentication, metrics."""

    def __init__(
        self, sandbox: Sandbox, token: str, *, body_bytes: int | None = None, read_timeout_s: float = READ_TIMEOUT_S
    ) -> None:
        if not token:
            raise ValueError("the service needs a token (QUIZBOT_SANDBOX_TOKEN)")
        self.sandbox = sandbox
        self._token = token.encode()
        config = sandbox.config
        self.body_bytes = body_bytes if body_bytes is not None else default_body_bytes(config)
        self.capacity = config.workers + config.queue_length
        self.read_timeout_s = read_timeout_s
        self.inflight = 0
        self.served = 0
        self._avg_job_s = 1.0
        self._start: asyncio.Task[None] | None = None
        self.registry = CollectorRegistry()
        self._jobs = Counter(
            "quizbot_sandbox_service_jobs", "Jobs answered, by result status.", ["status"], registry=self.registry
        )
        self._seconds = Histogram(
            "quizbot_sandbox_service_job_seconds", "Time from admission to answer.", buckets=JOB_BUCKETS,
            registry=self.registry,
        )  # fmt: skip
        self._refused = Counter(
            "quizbot_sandbox_service_refused", "Requests refused before running, by reason.", ["reason"],
            registry=self.registry,
        )  # fmt: skip
        self._inflight = Gauge(
            "quizbot_sandbox_service_inflight", "Jobs running or waiting in this service.", registry=self.registry
        )
        Gauge(
            "quizbot_sandbox_service_capacity", "Jobs this service takes at once (workers plus queue).",
            registry=self.registry,
        ).set(self.capacity)  # fmt: skip
        for status in STATUSES:
            self._jobs.labels(status=status)

    # --- lifetime -------------------------------------------------------------------------------
    def start_soon(self) -> None:
        """Start warming the template in the background; /readyz answers 200 once it is warm."""
        if self._start is None:
            self._start = asyncio.get_running_loop().create_task(self.sandbox.start(), name="sandbox-start")

    @property
    def ready(self) -> bool:
        """Return True when the template is warm."""
        task = self._start
        return (
            task is not None and task.done() and not task.cancelled() and task.exception() is None
            and self.sandbox.template_pid is not None
        )  # fmt: skip

    async def close(self) -> None:
        """Stop the pool (after the start, when it is still running)."""
        if self._start is not None:
            with contextlib.suppress(Exception):
                await self._start
        await self.sandbox.close()

    # --- HTTP -----------------------------------------------------------------------------------
    def app(self) -> web.Application:
        """Return the aiohttp application (the body cap is also aiohttp's ``client_max_size``)."""
        app = web.Application(client_max_size=self.body_bytes)
        app.router.add_post(RUN_PATH, self._run)
        app.router.add_get("/healthz", self._health)
        app.router.add_get("/readyz", self._readyz)
        app.router.add_get("/metrics", self._metrics)
        return app

    def _authorised(self, request: web.Request) -> bool:
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        try:
            token = given.strip().encode("ascii")
        except UnicodeError:  # a token is ASCII: any other byte is a wrong token, not a server error
            return False
        return scheme.lower() == "bearer" and hmac.compare_digest(token, self._token)

    def _refuse(self, reason: str, status: int, text: str, headers: dict[str, str] | None = None) -> web.Response:
        self._refused.labels(reason=reason).inc()
        return web.json_response({"error": text}, status=status, headers=headers)

    def _retry_after(self) -> int:
        return max(1, math.ceil(self._avg_job_s * (self.inflight + 1) / max(1, self.sandbox.workers)))

    async def _run(self, request: web.Request) -> web.Response:
        if not self._authorised(request):
            return self._refuse("auth", 401, "a valid bearer token is required")
        length = request.content_length
        if length is not None and length > self.body_bytes:
            return self._refuse("size", 413, f"the body is over {self.body_bytes} bytes")
        if not self.ready:
            return self._refuse("starting", 503, "the sandbox is starting", {"Retry-After": "2"})
        try:
            # Stops at client_max_size (413) for chunked bodies; a client that stalls mid-body is cut
            # off, and holds no capacity meanwhile (that is taken once the whole body is here).
            body = await asyncio.wait_for(request.read(), self.read_timeout_s)
        except web.HTTPRequestEntityTooLarge:
            return self._refuse("size", 413, f"the body is over {self.body_bytes} bytes")
        except TimeoutError:
            return self._refuse("slow", 408, f"the body did not arrive within {self.read_timeout_s:g} s")
        except (ConnectionError, asyncio.IncompleteReadError) as exc:
            log.info("a client went away before its body was read (%s)", type(exc).__name__)
            return self._refuse("gone", 400, "the connection closed mid-body")
        try:  # the body is scanned and parsed off the event loop
            job = await asyncio.to_thread(read_job, body) if len(body) > INLINE_PARSE_BYTES else read_job(body)
        except BadJob as exc:
            return self._refuse("invalid", 400, str(exc))
        if self.inflight >= self.capacity:
            return self._refuse("busy", 429, "the queue is full", {"Retry-After": str(self._retry_after())})
        self.inflight += 1
        self._inflight.set(self.inflight)
        try:
            started = time.monotonic()
            try:
                result = await self.sandbox.run(job.pop("code"), **job)
            except SandboxError as exc:
                log.error("sandbox: %s", exc)
                return self._refuse("unavailable", 503, "the sandbox is unavailable", {"Retry-After": "5"})
            elapsed = time.monotonic() - started
            busy = _BUSY.match(result.message) if result.status == "rejected" else None
            if busy is not None:
                return self._refuse("busy", 429, "the queue is full", {"Retry-After": busy.group(1)})
            self._avg_job_s = 0.8 * self._avg_job_s + 0.2 * elapsed
            self._jobs.labels(status=result.status).inc()
            self._seconds.observe(elapsed)
            self.served += 1
            return web.json_response(result.to_dict())
        finally:
            self.inflight -= 1
            self._inflight.set(self.inflight)

    async def _health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "alive"})

    async def _readyz(self, request: web.Request) -> web.Response:
        if self.ready:
            return web.json_response({"status": "ready", "isolation": list(self.sandbox.isolation)})
        return web.json_response({"status": "starting"}, status=503)

    async def _metrics(self, request: web.Request) -> web.Response:
        body = generate_latest(self.registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


async def serve(config: SandboxConfig, token: str, *, host: str, port: int, grace_s: float = 30.0) -> None:
    """Serve until SIGTERM or SIGINT; then refuse new jobs and let running ones finish (up to ``grace_s``)."""
    service = SandboxService(Sandbox(config), token)
    service.start_soon()
    runner = web.AppRunner(service.app(), access_log=None, shutdown_timeout=grace_s)
    await runner.setup()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await web.TCPSite(runner, host, port).start()
        log.warning("sandbox service listening on http://%s:%d%s", host, port, RUN_PATH)
        await stop.wait()
        log.warning("sandbox service stopping; running jobs may finish for up to %.0f s", grace_s)
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        await runner.cleanup()
        await service.close()
