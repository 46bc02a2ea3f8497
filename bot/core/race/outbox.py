"""Outbox: the race service's one `publish` port, handing each channel post to its platform's adapter.

The race service is built before the front ends; each front end attaches its publisher when it
starts. A restarted bot closes overdue rounds at once, often before its front ends have attached:
their posts wait here (a bounded number per platform) and go out, in order, once the platform
attaches. A post that cannot wait (the queue is full) is logged and dropped; the race goes on.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque

from .ports import ChannelPost, Publisher

log = logging.getLogger(__name__)

MAX_WAITING = 200  # posts kept per platform until its front end attaches


class Outbox:
    """Route race posts (`ChannelPost.platform`) to the publisher each adapter attached."""

    def __init__(self) -> None:
        self._publishers: dict[str, Publisher] = {}
        self._waiting: dict[str, deque[ChannelPost]] = {}
        self._flushing: dict[str, asyncio.Task[None]] = {}

    def attach(self, platform: str, publisher: Publisher) -> None:
        """Send this platform's posts to `publisher` from now on (a restarted client replaces it)."""
        self._publishers[platform] = publisher
        if self._waiting.get(platform) and platform not in self._flushing:
            self._flushing[platform] = asyncio.get_running_loop().create_task(self._flush(platform))

    def detach(self, platform: str, publisher: Publisher | None = None) -> None:
        """Stop sending this platform's posts (only if `publisher` is still the attached one, when given)."""
        if publisher is None or self._publishers.get(platform) == publisher:  # bound methods compare equal
            self._publishers.pop(platform, None)

    async def __call__(self, post: ChannelPost) -> None:
        publisher = self._publishers.get(post.platform)
        waiting = self._waiting.get(post.platform)
        if publisher is None or waiting or post.platform in self._flushing:  # keep the order behind held posts
            self._hold(post)
            return
        await publisher(post)

    def _hold(self, post: ChannelPost) -> None:
        waiting = self._waiting.setdefault(post.platform, deque())
        if len(waiting) >= MAX_WAITING:
            dropped = waiting.popleft()
            log.warning("no %s front end is running: race %s's post was dropped", post.platform, dropped.race_id)
        waiting.append(post)

    async def _flush(self, platform: str) -> None:
        waiting = self._waiting[platform]
        try:
            while waiting:
                publisher = self._publishers.get(platform)
                if publisher is None:  # detached meanwhile: the rest waits for the next attach
                    return
                post = waiting.popleft()
                try:
                    await publisher(post)
                except Exception:
                    log.exception("posting race %s's held post failed", post.race_id)
        finally:
            self._flushing.pop(platform, None)
