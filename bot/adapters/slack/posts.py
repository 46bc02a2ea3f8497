"""The scheduler's posts in Slack, with the bot's token: the daily question, its tally, its reveal, DMs.

Slack's refusals (channel gone, bot removed, DMs closed) become DeliveryFailed; replies to a
learner's request are in deliver.py.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from bot.core.daily import DailyPost
from bot.core.replies import Message
from bot.scheduler import DeliveryFailed

from .api import Place, SlackApi, SlackCallFailed

# Slack's answers that mean the bot can no longer post there (or reach the person): pause, do not retry.
REFUSED = frozenset({
    "channel_not_found", "not_in_channel", "is_archived", "restricted_action", "cant_update_message",
    "message_not_found", "user_not_found", "user_disabled", "cannot_dm_bot", "messages_tab_disabled",
    "not_allowed_token_type", "missing_scope", "account_inactive", "team_access_not_granted",
})


class SlackPoster:
    """Post the daily question, edit its tally, post the reveal in its thread and send DMs.

    The scheduler calls these (`bot.scheduler.Poster`); a refusal in REFUSED raises DeliveryFailed,
    other failures (rate limits left after retries, the network) propagate and are retried later.
    """

    def __init__(self, api: SlackApi) -> None:
        self._api = api

    async def post_item(self, post: DailyPost, message: Message) -> str:
        with _refused():
            return await self._api.post(Place(post.channel_id), message)

    async def edit_post(self, post: DailyPost, message: Message) -> None:
        if post.message_ref:
            with _refused():
                await self._api.update(post.channel_id, post.message_ref, message)

    async def post_reveal(self, post: DailyPost, message: Message) -> None:
        with _refused():
            await self._api.post(Place(post.channel_id, post.message_ref or None), message)

    async def send_dm(self, platform: str, user_id: str, message: Message) -> None:
        with _refused():
            await self._api.post(Place(await self._api.open_dm(user_id)), message)


@contextlib.contextmanager
def _refused() -> Iterator[None]:
    try:
        yield
    except SlackCallFailed as exc:
        if exc.error in REFUSED:
            raise DeliveryFailed(exc.error) from exc
        raise
