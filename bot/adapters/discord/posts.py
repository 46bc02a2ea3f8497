"""Send to Discord with no interaction to answer through: the bot's own token, a channel or a DM.

A plain message (code sent in a DM or a quiz thread, or under the daily post) is answered in its
channel or the author's DMs; a race's round end is posted to its channel; the scheduler's daily
question, its tally, its reveal and its DMs go through DiscordPoster. Answers to an interaction
are in deliver.py.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator

import discord

from bot.core.daily import DailyPost
from bot.core.i18n import N_, _
from bot.core.race import ChannelPost
from bot.core.replies import Message, Reply
from bot.scheduler import DeliveryFailed

from .deliver import APOLOGY, ItemRef, ItemRefs, in_its_language, render_notice_message
from .render import render

log = logging.getLogger("bot.adapters.discord.deliver")  # under its name from before these moved out of deliver.py


class ChannelResponder:
    """Answer a plain message (code sent in a DM or a quiz thread): no interaction token, the channel."""

    def __init__(self, message: discord.Message, refs: ItemRefs) -> None:
        self.message = message
        self.refs = refs

    @in_its_language
    async def deliver(self, reply: Reply, *, clicked: str | None = None) -> None:
        messages = reply.messages
        if reply.update is not None:
            # The grade goes where the code was sent; the item elsewhere (a server channel's private
            # message, for code sent by DM) is brought up to date as well.
            elsewhere = not self._here(self.refs.get(reply.update.session_id))
            if not await self.refs.edit(reply.update) or elsewhere:
                messages = (reply.update, *messages)
        for number, core_message in enumerate(messages):
            kwargs = render(core_message).send_kwargs()
            if number == 0:
                kwargs.update(reference=self.message, mention_author=False)
            try:
                sent = await self.message.channel.send(**kwargs)
            except discord.HTTPException as exc:
                log.warning("could not answer a message (%s %s)", exc.status, exc.code)
                return
            if core_message.kind == "item" and core_message.session_id:
                self.refs.remember(core_message.session_id, ItemRef.posted(sent))

    def _here(self, ref: ItemRef | None) -> bool:
        """Whether an item message lives in the channel the learner's message was sent in."""
        return ref is not None and ref.channel_id == self.message.channel.id

    async def apologise(self) -> None:
        try:
            await self.message.channel.send(**render(render_notice_message(_(APOLOGY))).send_kwargs())
        except discord.HTTPException:
            log.exception("could not even apologise for an error")


class DirectResponder:
    """Answer a plain message privately: in the author's DMs, with a reaction on the message saying so.

    Discord has no ephemeral reply to a message, so the feedback on a code block sent under the
    daily post goes to the member's DMs. The reaction is the same whatever the grade (a mark of
    right or wrong on code everyone can read would give the answer away). When the member's DMs
    are closed, a short reply in the thread says where to answer instead, and nothing about the grade.
    """

    SENT = "\N{INCOMING ENVELOPE}"
    DMS_CLOSED = N_(
        "I could not send you a direct message with the feedback on your code. Allow direct messages "
        "from this server's members, or answer with the **Answer** button on the question."
    )

    def __init__(self, message: discord.Message) -> None:
        self.message = message

    @in_its_language
    async def deliver(self, reply: Reply, *, clicked: str | None = None) -> None:
        messages = reply.messages or ((reply.update,) if reply.update is not None else ())
        try:
            for core_message in messages:
                await self.message.author.send(**render(core_message).send_kwargs())
        except discord.HTTPException as exc:
            log.info("could not DM a member their daily feedback (%s %s)", exc.status, exc.code)
            await self._in_thread(_(self.DMS_CLOSED))
            return
        try:
            await self.message.add_reaction(self.SENT)
        except discord.HTTPException as exc:
            log.info("could not react to a member's message (%s %s)", exc.status, exc.code)

    async def apologise(self) -> None:
        try:
            await self.message.author.send(**render(render_notice_message(_(APOLOGY))).send_kwargs())
        except discord.HTTPException:
            await self._in_thread(_(APOLOGY))

    async def _in_thread(self, text: str) -> None:
        kwargs = render(render_notice_message(text)).send_kwargs()
        kwargs.update(reference=self.message, mention_author=True)
        try:
            await self.message.channel.send(**kwargs)
        except discord.HTTPException as exc:
            log.warning("could not answer a message (%s %s)", exc.status, exc.code)


RaceAnchor = Callable[[str, dict[str, str]], Awaitable[None]]  # (race id, where its round was posted)


async def post_race(client: discord.Client, post: ChannelPost, remember: RaceAnchor) -> None:
    """Post a race's round end to its channel with the bot's own token: no interaction is left to use.

    The closed round's message is edited first (its buttons disabled, the answer marked), then the
    reveal and the next round or the final table are sent; the new round's message is remembered.
    """
    channel = client.get_partial_messageable(int(post.channel_id))
    message_id = post.anchor.get("message_id")
    if post.closed_round is not None and message_id and message_id.isdigit():
        try:
            await channel.get_partial_message(int(message_id)).edit(**render(post.closed_round).edit_kwargs())
        except discord.HTTPException as exc:
            log.info("could not close a race round's message (%s %s)", exc.status, exc.code)
    for number, message in enumerate(post.messages):
        try:
            sent = await channel.send(**render(message).send_kwargs())
        except discord.HTTPException as exc:
            log.warning("could not post to a race's channel (%s %s)", exc.status, exc.code)
            return
        if post.next_round is not None and number == len(post.messages) - 1:
            await remember(post.race_id, {"channel_id": post.channel_id, "message_id": str(sent.id)})


class DiscordPoster:
    """Post the daily question, edit its tally, post the reveal and send DMs, without an interaction.

    The scheduler calls these (`bot.scheduler.Poster`); a channel or user Discord refuses
    (deleted, permissions removed, DMs closed) raises DeliveryFailed, other errors propagate.
    """

    def __init__(self, client: discord.Client) -> None:
        self._client = client

    def _channel(self, channel_id: str) -> discord.PartialMessageable:
        return self._client.get_partial_messageable(int(channel_id))

    async def post_item(self, post: DailyPost, message: Message) -> str:
        with _refused():
            sent = await self._channel(post.channel_id).send(**render(message).send_kwargs())
        return str(sent.id)

    async def edit_post(self, post: DailyPost, message: Message) -> None:
        if not post.message_ref:
            return
        with _refused():
            await self._channel(post.channel_id).get_partial_message(int(post.message_ref)).edit(
                **render(message).edit_kwargs()
            )

    async def post_reveal(self, post: DailyPost, message: Message) -> None:
        channel = self._channel(post.channel_id)
        kwargs = render(message).send_kwargs()
        if post.message_ref:
            kwargs.update(reference=channel.get_partial_message(int(post.message_ref)), mention_author=False)
        with _refused():
            await channel.send(**kwargs)

    async def send_dm(self, platform: str, user_id: str, message: Message) -> None:
        with _refused():
            dm = await self._client.create_dm(discord.Object(id=int(user_id)))
            await dm.send(**render(message).send_kwargs())


@contextlib.contextmanager
def _refused() -> Iterator[None]:
    """Turn Discord's refusals (no access, gone) into DeliveryFailed with a short reason."""
    try:
        yield
    except (discord.Forbidden, discord.NotFound) as exc:
        raise DeliveryFailed(f"{exc.status} {exc.text or type(exc).__name__}"[:120]) from exc
