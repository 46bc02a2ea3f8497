"""The core's CodeRunner port on the `sandbox` package."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from sandbox import Result, Sandbox, SandboxConfig, SandboxNotStarted

from .core.errors import QuizError
from .core.i18n import N_, _
from .core.ports import RunOutcome, RunRequest

log = logging.getLogger(__name__)

STARTING = N_("The bot is starting; please send that again in a minute.")
STOPPING = N_("The bot is restarting; please send that again in a minute.")
FAILED = N_("Code cannot be run here right now: the sandbox did not start. The operator has been told.")


class SandboxStarting(QuizError):
    """The sandbox pool is not running (the process is starting or stopping): the learner sends again."""


class SandboxDown(QuizError):
    """The sandbox pool failed to start: code cannot run until the operator fixes it and restarts."""


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
    """Start the warm pool in the background; the first job waits for it.

    A pool that fails to start, for whatever reason, is one ERROR line for the operator (what failed,
    never a traceback) and a plain refusal for each learner who sends code; a pool closed by a
    shutdown says the bot is restarting, never that it is starting.
    """

    def __init__(self, config: SandboxConfig) -> None:
        self._config = config
        self._sandbox = Sandbox(config)
        self._started: asyncio.Task[None] | None = None
        self._starting = 0  # jobs waiting for the pool to start
        self._closing = False
        self.failure: str | None = None  # why the pool did not start, in one line

    @property
    def max_code_bytes(self) -> int:
        return self._config.code_bytes

    @property
    def waiting(self) -> int:
        """Return how many jobs wait for a worker: for the pool to start, or in its queue."""
        return self._starting + self._sandbox.waiting

    @property
    def state(self) -> str:
        """Say where the pool stands: `starting`, `ready`, `failed` or `stopped` (/readyz names it)."""
        if self._closing:
            return "stopped"
        if self.failure is not None:
            return "failed"
        return "ready" if self.ready() else "starting"

    def start_soon(self) -> None:
        if self._started is None and not self._closing:
            self._started = asyncio.create_task(self._sandbox.start(), name="quizbot-sandbox-start")
            self._started.add_done_callback(self._on_started)

    def _on_started(self, task: asyncio.Task[None]) -> None:
        """Report a failed start once, in one line (retrieving the error, so asyncio logs no traceback)."""
        if task.cancelled():
            return
        exc = task.exception()
        if exc is None:
            log.info("sandbox pool started")
            return
        self.failure = one_line(exc)
        if self._closing or isinstance(exc, SandboxNotStarted):
            log.info("the sandbox pool did not start: the bot is stopping")
            return
        log.error("the sandbox pool did not start: %s; code answers are refused until this is fixed and the bot restarted", self.failure)

    def ready(self) -> bool:
        """Return True once the warm pool has started."""
        task = self._started
        return task is not None and task.done() and not task.cancelled() and task.exception() is None

    async def _ready(self) -> None:
        self.start_soon()
        if self._started is None:
            raise SandboxNotStarted("the sandbox is closed")
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
            if self.failure is not None and not self._closing:
                raise self._down(exc) from None
            log.warning("a code answer came while the sandbox pool is not running (%s); the learner is asked to send it again",
                        "the bot is stopping" if self._closing else exc)
            raise SandboxStarting(_(STOPPING if self._closing else STARTING)) from None
        except Exception as exc:
            task = self._started
            if task is None or not task.done() or task.cancelled() or task.exception() is not exc:
                raise  # not the start's failure: the core reports it
            raise self._down(exc) from None
        return to_outcome(result)

    def _down(self, exc: BaseException) -> SandboxDown:
        # The ERROR line was written once, when the start failed; each refused answer is a quiet note.
        log.info("a code answer was refused: the sandbox pool did not start (%s)", self.failure or one_line(exc))
        return SandboxDown(_(FAILED))

    async def close(self) -> None:
        self._closing = True
        if self._started is not None:
            with contextlib.suppress(Exception):  # a failed start was reported in one line when it failed
                await self._started
        await self._sandbox.close()


def one_line(exc: BaseException) -> str:
    """Say what an exception was in one line: its type and the first line of its message."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300]}" if text else type(exc).__name__
