"""The scheduler's posts in Slack, with the bot's token: the daily question, its tally, its reveal, DMs.

Slack's refusals (channel gone, bot removed, DMs closed) become DeliveryFailed; `can_post` tells
`/quiz daily set` beforehand (conversations.info). Replies to a learner's request are in deliver.py.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from bot.core.daily import DailyPost, PostAccess
from bot.core.i18n import N_, _
from bot.core.replies import Message
from bot.scheduler import DeliveryFailed

from .api import Place, SlackApi, SlackCallFailed

# Slack's answers that mean the bot can no longer post there (or reach the person): pause, do not retry.
REFUSED = frozenset({
    "channel_not_found", "not_in_channel", "is_archived", "restricted_action", "cant_update_message",
    "message_not_found", "user_not_found", "user_disabled", "cannot_dm_bot", "messages_tab_disabled",
    "not_allowed_token_type", "missing_scope", "account_inactive", "team_access_not_granted",
})

NO_CHANNEL = N_(
    "Slack knows no channel with that id that the bot can see (a private channel stays hidden until the bot"
    " is in it). Check the channel, or invite the bot there with `/invite @{bot}`."
)
ARCHIVED = N_("the channel is archived. Unarchive it, or choose another channel.")
NOT_A_MEMBER = N_(
    "the bot is not a member of the channel. Invite it with `/invite @{bot}` in that channel, then set the"
    " daily question again."
)


class SlackPoster:
    """Post the daily question, edit its tally, post the reveal in its thread and send DMs.

    The scheduler calls these (`bot.scheduler.Poster`); a refusal in REFUSED raises DeliveryFailed,
    other failures (rate limits left after retries, the network) propagate and are retried later.
    """

    def __init__(self, api: SlackApi) -> None:
        self._api = api
        self._name: str | None = None  # the bot's user name, for `/invite @name`

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

    async def can_post(self, platform: str, channel_id: str) -> PostAccess:
        """Say whether the bot can post in the channel (`ChannelCheck`): conversations.info's answer.

        A channel Slack does not show the bot, an archived one, or one the bot is not a member of is
        refused with what to do; any other failure (a missing scope, the network) leaves it unchecked.
        """
        try:
            data = await self._api.call("conversations.info", channel=channel_id)
        except SlackCallFailed as exc:
            if exc.error == "channel_not_found":
                return PostAccess(_(NO_CHANNEL).format(bot=await self._bot_name()))
            return PostAccess(checked=False)
        channel = data.get("channel")
        channel = channel if isinstance(channel, dict) else {}
        if channel.get("is_archived"):
            return PostAccess(_(ARCHIVED))
        if channel.get("is_member") is False:
            return PostAccess(_(NOT_A_MEMBER).format(bot=await self._bot_name()))
        return PostAccess()

    async def _bot_name(self) -> str:
        if self._name is None:
            try:
                name = (await self._api.call("auth.test")).get("user")
            except SlackCallFailed:
                return "QuizBot"  # asked again next time
            self._name = str(name) if isinstance(name, str) and name else "QuizBot"
        return self._name


@contextlib.contextmanager
def _refused() -> Iterator[None]:
    try:
        yield
    except SlackCallFailed as exc:
        if exc.error in REFUSED:
            raise DeliveryFailed(exc.error) from exc
        raise
