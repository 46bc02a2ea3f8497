"""The core's CodeRunner port on the `sandbox` package."""

from __future__ import annotations

import asyncio
import logging

from sandbox import Result, Sandbox, SandboxConfig, SandboxNotStarted

from .core.errors import QuizError
from .core.ports import RunOutcome, RunRequest

log = logging.getLogger(__name__)

STARTING = "The bot is starting; please send that again in a minute."


class SandboxStarting(QuizError):
    """The sandbox pool is not running (the process is starting or stopping): the learner sends again."""


def to_outcome(result: Result) -> RunOutcome:
    error = result.error
    error_text = ""
    if error is not None:
        error_text = f"{error.type}: {error.message}" if error.message else error.type
    return RunOutcome(
        status=result.status,
        tests=tuple((t.name, t.passed, t.message) for t in result.tests),
        stdout=result.stdout,
        stderr=result.stderr,
        truncated=result.truncated,
        wall_ms=int(result.wall_ms),
        peak_memory_mb=float(result.peak_memory_mb),
        message=result.message,
        error_line=error.line if error is not None else None,
        error_col=error.col if error is not None else None,
        error_text=error_text,
        isolation=tuple(result.isolation),
    )


class SandboxRunner:
    """Start the warm pool in the background; the first job waits for it."""

    def __init__(self, config: SandboxConfig) -> None:
        self._config = config
        self._sandbox = Sandbox(config)
        self._started: asyncio.Task[None] | None = None
        self._starting = 0  # jobs waiting for the pool to start

    @property
    def max_code_bytes(self) -> int:
        return self._config.code_bytes

    @property
    def waiting(self) -> int:
        """Return how many jobs wait for a worker: for the pool to start, or in its queue."""
        return self._starting + self._sandbox.waiting

    def start_soon(self) -> None:
        if self._started is None:
            self._started = asyncio.create_task(self._sandbox.start())

    def ready(self) -> bool:
        """Return True once the warm pool has started."""
        task = self._started
        return task is not None and task.done() and not task.cancelled() and task.exception() is None

    async def _ready(self) -> None:
        self.start_soon()
        assert self._started is not None
        await asyncio.shield(self._started)

    async def run(self, request: RunRequest) -> RunOutcome:
        try:
            self._starting += 1
            try:
                await self._ready()
            finally:
                self._starting -= 1
            result = await self._sandbox.run(
                request.code, test=request.test, owner=request.owner, wall_s=request.time_s, memory_mb=request.memory_mb
            )
        except SandboxNotStarted as exc:
            log.warning("the sandbox is not running (%s); the learner is asked to send the code again", exc)
            raise SandboxStarting(STARTING) from None
        return to_outcome(result)

    async def close(self) -> None:
        if self._started is not None:
            try:
                await self._started
            except Exception:  # a failed start is reported where it was awaited
                log.debug("sandbox start had failed", exc_info=True)
        await self._sandbox.close()
