"""Stop without losing work: refuse new requests, let those in flight finish and deliver, then close.

:class:`Drain` is middleware of ``QuizService`` (``service.use(drain)``): it counts the requests in flight and, once draining,
answers new ones with :data:`RESTARTING` (the learner is told to send it again rather than left
waiting). :func:`platform_work` finds the Discord library's handler tasks, which also deliver the
replies, so a shutdown can wait for them before closing the client. What is still running when the
grace is over is cancelled (:meth:`Drain.cancel`) before the sandbox and the database close, so that
no outcome of a closing sandbox is stored; its rows of unfinished work (`bot.core.work`) stay, marked
abandoned, and the learner's next request, in any process, is told to send it again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bot.core.i18n import N_, _

from .core.errors import QuizError

log = logging.getLogger(__name__)

RESTARTING = N_("The bot is restarting; please send that again in a minute.")
# Names discord.py gives the tasks that run an event, a command or a component callback.
_PLATFORM_TASKS = ("discord.py: ", "CommandTree-invoker", "discord-ui-view-dispatch-")


class Restarting(QuizError):
    """The bot is shutting down and takes no new work."""


class Drain:
    """Count the core's requests in flight; refuse new ones once draining."""

    def __init__(self) -> None:
        self.inflight = 0
        self.draining = False
        self._tasks: set[asyncio.Task[Any]] = set()  # the tasks running a request in the core
        self._idle = asyncio.Event()
        self._idle.set()

    async def __call__(self, actor: Any, request: Any, next_: Callable[[], Awaitable[Any]]) -> Any:
        """Middleware: see every request in the core; refuse new ones once draining."""
        if self.draining:
            raise Restarting(_(RESTARTING))  # before the learner's language is known: the front end's guess (Discord: the client's)
        self.inflight += 1
        self._idle.clear()
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            return await next_()
        finally:
            if task is not None:
                self._tasks.discard(task)
            self.inflight -= 1
            if self.inflight == 0:
                self._idle.set()

    def start(self) -> None:
        """Take no new requests from now on."""
        self.draining = True

    async def idle(self) -> None:
        """Wait until no request is in the core."""
        await self._idle.wait()

    async def cancel(self, wait_s: float = 5.0) -> int:
        """Cancel the requests still in the core and wait (up to ``wait_s``) until they have unwound."""
        tasks = {t for t in self._tasks if not t.done() and t is not asyncio.current_task()}
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=wait_s)
        return len(tasks)


def platform_work() -> set[asyncio.Task[Any]]:
    """Return the running tasks of the Discord library's handlers (a reply may still be on its way)."""
    me = asyncio.current_task()
    return {
        t for t in asyncio.all_tasks() if t is not me and not t.done() and t.get_name().startswith(_PLATFORM_TASKS)
    }


async def finish_work(drain: Drain, grace_s: float) -> bool:
    """Stop taking work and wait up to ``grace_s`` for what is in flight; return whether it all ended."""
    drain.start()
    deadline = time.monotonic() + grace_s
    try:
        await asyncio.wait_for(drain.idle(), max(0.0, deadline - time.monotonic()))
        while tasks := platform_work():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            await asyncio.wait(tasks, timeout=left)
    except TimeoutError:
        log.warning("%d requests were still running after %.0f s and are abandoned", drain.inflight, grace_s)
        return False
    return True
