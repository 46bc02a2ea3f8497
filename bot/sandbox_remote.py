"""The core's CodeRunner port over sandbox services (``quizbot sandbox serve``) on other hosts.

Jobs go to the least busy service (fewest jobs this process has in flight there). A service that
cannot be reached, or answers 429 or 503, is left aside for its ``Retry-After`` and the job is
tried on the next one; a service that dies mid-job is treated the same way, so the learner's
result arrives once, from the service that finished it. When every service fails, the job runs
on the local pool if one was given (``QUIZBOT_SANDBOX_FALLBACK=local``), else the learner is
told the sandbox is busy.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from typing import Any, get_args

import aiohttp

from .bounded_read import read_at_most
from .core.ports import CodeRunner, RunOutcome, RunRequest, RunStatus

log = logging.getLogger(__name__)

RUN_PATH = "/v1/run"
MAX_ANSWER_BYTES = 4 * 1024 * 1024
BACKSTOP_S = 30.0  # beyond the job's wall limit, how long to wait for a service's answer
DEFAULT_PAUSE_S = 2.0
_STATUSES = frozenset(get_args(RunStatus))


class ServiceFailed(Exception):
    """One service could not run the job; another may."""

    def __init__(self, reason: str, retry_after: float = DEFAULT_PAUSE_S) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


@dataclass
class Endpoint:
    """One sandbox service as this process sees it."""

    url: str
    inflight: int = 0
    paused_until: float = 0.0
    jobs: int = 0
    failures: int = 0


def _retry_after(headers: Any) -> float:
    try:
        return min(60.0, max(0.0, float(headers.get("Retry-After", DEFAULT_PAUSE_S))))
    except ValueError:
        return DEFAULT_PAUSE_S


def outcome_from_json(data: Any) -> RunOutcome:
    """Return the outcome of a service's result JSON; raise ValueError when it is not one."""
    if not isinstance(data, dict) or data.get("status") not in _STATUSES:
        raise ValueError("not a sandbox result")
    tests = data.get("tests") or []
    if not isinstance(tests, list) or not all(isinstance(t, dict) for t in tests):
        raise ValueError("tests must be a list of objects")
    error = data.get("error")
    error_text = ""
    if isinstance(error, dict):
        kind, message = str(error.get("type", "")), str(error.get("message", ""))
        error_text = f"{kind}: {message}" if message else kind
    else:
        error = {}

    def line(value: Any) -> int | None:
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    return RunOutcome(
        status=data["status"],
        tests=tuple((str(t.get("name", "")), t.get("passed") is True, str(t.get("message", ""))) for t in tests),
        stdout=str(data.get("stdout", "")),
        stderr=str(data.get("stderr", "")),
        truncated=data.get("truncated") is True,
        wall_ms=int(data.get("wall_ms") or 0),
        peak_memory_mb=float(data.get("peak_memory_mb") or 0.0),
        message=str(data.get("message", "")),
        error_line=line(error.get("line")),
        error_col=line(error.get("col")),
        error_text=error_text,
        isolation=tuple(str(x) for x in data.get("isolation") or ()),
    )


class RemoteRunner:
    """Run jobs on sandbox services, spreading them and failing over; optionally on a local pool last."""

    def __init__(
        self,
        urls: list[str],
        token: str,
        *,
        max_code_bytes: int,
        wall_s: float,
        fallback: CodeRunner | None = None,
        connect_timeout_s: float = 3.0,
    ) -> None:
        if not urls:
            raise ValueError("at least one sandbox service URL is needed")
        self.endpoints = [Endpoint(url.rstrip("/")) for url in urls]
        self._token = token
        self._max_code_bytes = max_code_bytes
        self._wall_s = wall_s
        self._fallback = fallback
        self._connect_timeout_s = connect_timeout_s
        self._session: aiohttp.ClientSession | None = None

    @property
    def max_code_bytes(self) -> int:
        return self._max_code_bytes

    @property
    def waiting(self) -> int:
        """Return the jobs waiting for a worker in the local fallback pool (the services report their own)."""
        return int(getattr(self._fallback, "waiting", 0) or 0)

    @property
    def fallback(self) -> CodeRunner | None:
        """Return the local pool used when no service can take a job."""
        return self._fallback

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(headers={"Authorization": f"Bearer {self._token}"})
        return self._session

    def _order(self) -> list[Endpoint]:
        """Return the services to try: available ones least busy first, then paused ones."""
        now = time.monotonic()
        ranked = sorted(enumerate(self.endpoints), key=lambda p: (p[1].paused_until > now, p[1].inflight, p[0]))
        return [endpoint for _, endpoint in ranked]

    async def ready(self) -> bool:
        """Return True when at least one service answers /readyz with 200."""
        timeout = aiohttp.ClientTimeout(total=self._connect_timeout_s)
        for endpoint in self.endpoints:
            try:
                async with self._http().get(f"{endpoint.url}/readyz", timeout=timeout) as response:
                    if response.status == 200:
                        return True
            except (aiohttp.ClientError, TimeoutError):
                continue
        return False

    async def run(self, request: RunRequest) -> RunOutcome:
        body: dict[str, Any] = {"code": request.code, "test": request.test, "owner": request.owner}
        limits = {k: v for k, v in (("wall_s", request.time_s), ("memory_mb", request.memory_mb)) if v is not None}
        if limits:
            body["limits"] = limits
        wall = min(request.time_s, self._wall_s) if request.time_s else self._wall_s
        waits: list[float] = []
        for endpoint in self._order():
            try:
                return await self._run_on(endpoint, body, wall)
            except ServiceFailed as exc:
                endpoint.failures += 1
                endpoint.paused_until = time.monotonic() + exc.retry_after
                waits.append(exc.retry_after)
                log.warning("sandbox service %s failed (%s); trying another", endpoint.url, exc)
        if self._fallback is not None:
            log.warning("no sandbox service took the job; running it on the local pool")
            return await self._fallback.run(request)
        seconds = max(1, round(min(waits, default=DEFAULT_PAUSE_S)))
        return RunOutcome(status="rejected", message=f"busy, try again in {seconds} s")

    async def _run_on(self, endpoint: Endpoint, body: dict[str, Any], wall_s: float) -> RunOutcome:
        timeout = aiohttp.ClientTimeout(total=wall_s + BACKSTOP_S, sock_connect=self._connect_timeout_s)
        endpoint.inflight += 1
        try:
            async with self._http().post(f"{endpoint.url}{RUN_PATH}", json=body, timeout=timeout) as response:
                if response.status in (429, 503):
                    raise ServiceFailed(f"HTTP {response.status}", _retry_after(response.headers))
                if response.status == 401:
                    log.error("sandbox service %s refused the token (check QUIZBOT_SANDBOX_TOKEN)", endpoint.url)
                    raise ServiceFailed("HTTP 401", 30.0)
                if response.status == 413:
                    return RunOutcome(status="rejected", message="The code is too long for the sandbox.")
                if response.status != 200:
                    raise ServiceFailed(f"HTTP {response.status}")
                raw = await read_at_most(response, MAX_ANSWER_BYTES)
                if raw is None:
                    raise ServiceFailed("the answer is too long")
            try:
                outcome = outcome_from_json(_loads(raw))
            except ValueError as exc:
                raise ServiceFailed(f"bad answer: {exc}") from exc
            endpoint.jobs += 1
            return outcome
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise ServiceFailed(type(exc).__name__) from exc
        finally:
            endpoint.inflight -= 1

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
        if self._fallback is not None:
            await self._fallback.close()


def _loads(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise ValueError("not JSON") from exc


async def wait_ready(runner: RemoteRunner, timeout_s: float) -> bool:
    """Wait until a service is ready, up to ``timeout_s``; return whether one is."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if await runner.ready():
            return True
        await asyncio.sleep(0.2)
    return False
