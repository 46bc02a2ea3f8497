"""One read under way per key: callers that ask while it runs share its result instead of reading again.

Used where many requests miss a cache at once (a server's language after a start, a race's state on
its round's first clicks, a Slack user's profile): the first caller starts the read, the others
await the same future. Each caller's wait is shielded, so a caller that is cancelled does not cancel
the read the others wait for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from functools import partial
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SharedReads(Generic[K, V]):
    def __init__(self) -> None:
        self._running: dict[K, asyncio.Future[V]] = {}

    async def read(self, key: K, call: Callable[[], Awaitable[V]], keep: Callable[[V], None] | None = None) -> V:
        """Return what `call` gives, sharing the call under way for `key` if there is one.

        `keep` gets the result of a read that succeeded and was not `forget`-ten while it ran (a
        change made meanwhile, which the read may have missed): the place to cache it.
        """
        running = self._running.get(key)
        if running is None:
            running = self._running[key] = asyncio.ensure_future(call())
            running.add_done_callback(partial(self._done, key, keep))
        return await asyncio.shield(running)

    def forget(self, key: K) -> None:
        """Let the next caller read afresh, and keep nothing of the read under way (if any)."""
        self._running.pop(key, None)

    def _done(self, key: K, keep: Callable[[V], None] | None, done: asyncio.Future[V]) -> None:
        if self._running.get(key) is not done:
            return  # forgotten while it ran
        del self._running[key]
        if keep is not None and not done.cancelled() and done.exception() is None:
            keep(done.result())
