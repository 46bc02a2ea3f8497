"""Bounded admission: a fixed number of jobs run, a bounded number wait, the rest are turned away.

A job may wait when the queue has room and the jobs ahead of it would start it within the wait
budget, by the average time of recent jobs: cheap jobs queue deep, slow ones are turned away early
(the learner is told to try again) rather than left waiting for minutes.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib


class Admission:
    """Hand out worker slots: ``workers`` jobs at once, ``queue`` more may wait.

    There are more slots (cgroups) than workers, handed out least recently used, so a slot whose
    last job is still being torn down is rarely the next one given.
    """

    def __init__(self, workers: int, slots: int, queue: int) -> None:
        self.workers = workers
        self.queue = queue
        self.running = 0
        self._slots: collections.deque[int] = collections.deque(range(max(slots, workers)))
        self._waiters: collections.deque[asyncio.Future[int]] = collections.deque()

    @property
    def waiting(self) -> int:
        """Return how many jobs wait for a worker."""
        return len(self._waiters)

    def saturated(self) -> bool:
        """Return True when a new job can neither run nor wait."""
        return self.running >= self.workers and len(self._waiters) >= self.queue

    def expected_wait(self, job_s: float) -> float:
        """Return the seconds a new job would wait for a worker when jobs take ``job_s`` each."""
        if self.running < self.workers and not self._waiters:
            return 0.0
        return job_s * (len(self._waiters) + 1) / max(1, self.workers)

    def turns_away(self, job_s: float, max_wait_s: float) -> bool:
        """Return True when a new job can neither run nor wait, or would wait longer than ``max_wait_s``."""
        return self.saturated() or self.expected_wait(job_s) > max_wait_s

    async def acquire(self) -> int:
        """Wait for a worker; return the slot to run on."""
        if self.running < self.workers and not self._waiters:
            self.running += 1
            return self._slots.popleft()
        fut: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        try:
            return await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self.release(fut.result())
            else:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(fut)
            raise

    def release(self, slot: int) -> None:
        """Give a slot back; the longest waiting job gets a worker."""
        self._slots.append(slot)
        while self._waiters:
            fut = self._waiters.popleft()
            if not fut.done():
                fut.set_result(self._slots.popleft())
                return
        self.running -= 1

    def cancel_all(self) -> None:
        """Cancel every waiting job (the sandbox is closing)."""
        for fut in self._waiters:
            if not fut.done():
                fut.cancel()
        self._waiters.clear()
