"""The scheduler's port to the platforms: what it asks of each front end, and one poster per platform."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Protocol

from bot.core.daily.channel import DailyPost
from bot.core.daily.ports import PostAccess
from bot.core.replies import Message


class DeliveryFailed(Exception):
    """The platform refused a delivery: channel gone, permissions removed, direct messages closed."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class Poster(Protocol):
    """What the scheduler asks of the platforms; each adapter implements it (raise DeliveryFailed)."""

    async def post_item(self, post: DailyPost, message: Message) -> str:
        """Post the day's item to `post.channel_id`; return a reference to the message, for edits."""
        ...

    async def edit_post(self, post: DailyPost, message: Message) -> None:
        """Replace the posted message `post.message_ref` (new tally, or closed at reveal)."""
        ...

    async def post_reveal(self, post: DailyPost, message: Message) -> None:
        """Post the answer under the day's message (its thread, where there is one)."""
        ...

    async def send_dm(self, platform: str, user_id: str, message: Message) -> None:
        """Send a direct message: a reminder, or a paused schedule's notice to its admin."""
        ...

    async def can_post(self, platform: str, channel_id: str) -> PostAccess:
        """Say whether the bot can post the daily question in the channel (`bot.core.daily.ChannelCheck`)."""
        ...


class PlatformPosters:
    """One Poster per platform behind one: each call goes to the poster of its platform."""

    def __init__(self, posters: dict[str, Poster]) -> None:
        self._posters = dict(posters)
        self._added = asyncio.Condition()

    async def add(self, platform: str, poster: Poster) -> None:
        """Add (or replace) a platform's poster: a front end does this once its client exists."""
        async with self._added:
            self._posters[platform] = poster
            self._added.notify_all()

    async def wait_for(self, platforms: Iterable[str]) -> None:
        """Wait until every platform named has its poster (the scheduler starts after that)."""
        wanted = set(platforms)
        async with self._added:
            await self._added.wait_for(lambda: wanted <= self._posters.keys())

    def _for(self, platform: str) -> Poster:
        # The scheduler takes only its platforms' jobs (Scheduler's `platforms`); this is the backstop.
        poster = self._posters.get(platform)
        if poster is None:
            raise DeliveryFailed(f"this process does not run the {platform} front end")
        return poster

    async def post_item(self, post: DailyPost, message: Message) -> str:
        return await self._for(post.platform).post_item(post, message)

    async def edit_post(self, post: DailyPost, message: Message) -> None:
        await self._for(post.platform).edit_post(post, message)

    async def post_reveal(self, post: DailyPost, message: Message) -> None:
        await self._for(post.platform).post_reveal(post, message)

    async def send_dm(self, platform: str, user_id: str, message: Message) -> None:
        await self._for(platform).send_dm(platform, user_id, message)

    async def can_post(self, platform: str, channel_id: str) -> PostAccess:
        """The platform's poster's answer; a platform this process has no poster for (the terminal) is not asked."""
        poster = self._posters.get(platform)
        return PostAccess() if poster is None else await poster.can_post(platform, channel_id)
