"""Send to Discord with no interaction to answer through: the bot's own token, a channel or a DM.

A plain message (code sent in a DM or a quiz thread, or under the daily post) is answered in its
channel or the author's DMs; a race's round end is posted to its channel; the scheduler's daily
question, its tally, its reveal and its DMs go through DiscordPoster, which also tells `/quiz daily
set` whether the bot may post in a channel (`can_post`). Answers to an interaction are in deliver.py.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator

import aiohttp
import discord

from bot.core.daily import DailyPost, PostAccess
from bot.core.i18n import N_, _, ngettext
from bot.core.race import ChannelPost
from bot.core.replies import Message, Reply
from bot.scheduler import DeliveryFailed

from .deliver import APOLOGY, ItemRef, ItemRefs, in_its_language, render_notice_message
from .render import render

log = logging.getLogger("bot.adapters.discord.deliver")  # under its name from before these moved out of deliver.py

# What the daily question (an embed with buttons) needs, by the names Discord's channel settings show.
VIEW_CHANNEL = N_("View Channel")
NEEDED = (("view_channel", VIEW_CHANNEL), ("send_messages", N_("Send Messages")), ("embed_links", N_("Embed Links")))
IN_A_THREAD = (*NEEDED[:1], ("send_messages_in_threads", N_("Send Messages in Threads")), NEEDED[2])
NO_CHANNEL = N_("Discord knows no channel with that id that the bot can see. Choose a text channel of this server.")
NOT_TEXT = N_("it is not a text channel, so no message can be posted there. Choose a text channel.")
Needed = tuple[tuple[str, str], ...]


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

    async def can_post(self, platform: str, channel_id: str) -> PostAccess:
        """Say whether the bot has what the daily question needs in the channel (`ChannelCheck`).

        Its permissions there come from the cache (the guilds intent keeps channels, roles and the
        bot's own member) or, for a channel not in it, from Discord's API. Discord's 404 and 403 for
        the channel are answers; any other failure leaves the channel unchecked.
        """
        try:
            channel, needed = await self._target(int(channel_id))
        except (discord.NotFound, ValueError):
            return PostAccess(_(NO_CHANNEL))
        except discord.Forbidden:  # Discord's "Missing Access": the bot cannot see the channel
            return PostAccess(_lacks([VIEW_CHANNEL]))
        except (discord.HTTPException, discord.ClientException, aiohttp.ClientError, TimeoutError) as exc:
            log.info("could not read a channel to check the bot's permissions (%s)", type(exc).__name__)
            return PostAccess(checked=False)
        if channel is None:
            return PostAccess(_(NOT_TEXT))
        try:
            permissions = await self._permissions(channel)
        except (discord.HTTPException, discord.ClientException, aiohttp.ClientError, TimeoutError) as exc:
            log.info("could not read the bot's roles to check its permissions (%s)", type(exc).__name__)
            return PostAccess(checked=False)
        if permissions is None:
            return PostAccess(_(NOT_TEXT))
        missing = [name for flag, name in needed if not getattr(permissions, flag)]
        return PostAccess(_lacks(missing)) if missing else PostAccess()

    async def _target(self, channel_id: int) -> tuple[discord.abc.GuildChannel | None, Needed]:
        """The channel whose permissions count (a thread's parent), and what the bot needs there; None: not a text channel."""
        client = self._client
        channel = client.get_channel(channel_id) or await client.fetch_channel(channel_id)
        if isinstance(channel, discord.Thread):  # posted in; its parent (a text or forum channel) holds the permissions
            parent = channel.parent or await client.fetch_channel(channel.parent_id)
            return (parent if isinstance(parent, discord.abc.GuildChannel) else None), IN_A_THREAD
        if not isinstance(channel, discord.abc.GuildChannel) or not isinstance(channel, discord.abc.Messageable):
            return None, NEEDED
        return channel, NEEDED

    async def _permissions(self, channel: discord.abc.GuildChannel) -> discord.Permissions | None:
        """The bot's permissions in a guild channel, from the cache or, when its guild is not there, fetched."""
        guild = channel.guild
        # A guild known only by id (a fetched channel's, when the cache lacks it) has no roles: ask for them.
        me: discord.Member | None = guild.me if guild.get_role(guild.id) is not None else None
        if me is None:
            assert self._client.user is not None  # logged in
            guild = await self._client.fetch_guild(guild.id)
            me = await guild.fetch_member(self._client.user.id)
            fetched = next((c for c in await guild.fetch_channels() if c.id == channel.id), None)
            if fetched is None:  # the channel `_target` took (a text channel, or a thread's parent) is gone
                return None
            channel = fetched
        return channel.permissions_for(me)


def _lacks(names: list[str]) -> str:
    """Name the permissions the bot lacks in a channel, and where an admin gives them."""
    return ngettext(
        "the bot lacks the {names} permission there. Allow it for the bot (or its role) in the channel's"
        " settings, under Permissions.",
        "the bot lacks the {names} permissions there. Allow them for the bot (or its role) in the channel's"
        " settings, under Permissions.",
        len(names),
    ).format(names=", ".join(f"**{_(name)}**" for name in names))


@contextlib.contextmanager
def _refused() -> Iterator[None]:
    """Turn Discord's refusals (no access, gone) into DeliveryFailed with a short reason."""
    try:
        yield
    except (discord.Forbidden, discord.NotFound) as exc:
        raise DeliveryFailed(f"{exc.status} {exc.text or type(exc).__name__}"[:120]) from exc
