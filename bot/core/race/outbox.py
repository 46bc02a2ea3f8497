"""Outbox: the race service's one `publish` port, handing each channel post to its platform's adapter.

The race service is built before the front ends; each front end attaches its publisher when it
starts. A post for a platform nobody attached is logged and dropped (the race itself goes on).
"""

from __future__ import annotations

import logging

from .ports import ChannelPost, Publisher

log = logging.getLogger(__name__)


class Outbox:
    """Route race posts (`ChannelPost.platform`) to the publisher each adapter attached."""

    def __init__(self) -> None:
        self._publishers: dict[str, Publisher] = {}

    def attach(self, platform: str, publisher: Publisher) -> None:
        """Send this platform's posts to `publisher` from now on (a restarted client replaces it)."""
        self._publishers[platform] = publisher

    def detach(self, platform: str, publisher: Publisher | None = None) -> None:
        """Stop sending this platform's posts (only if `publisher` is still the attached one, when given)."""
        if publisher is None or self._publishers.get(platform) == publisher:  # bound methods compare equal
            self._publishers.pop(platform, None)

    async def __call__(self, post: ChannelPost) -> None:
        publisher = self._publishers.get(post.platform)
        if publisher is None:
            log.warning("no %s front end is running: race %s's post was dropped", post.platform, post.race_id)
            return
        await publisher(post)
