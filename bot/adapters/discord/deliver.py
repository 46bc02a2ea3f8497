"""Deliver one core Reply in answer to one Discord interaction.

The first answer uses the interaction response (a message, an edit of the clicked message, a
modal, or a deferral), later ones use follow-ups. A follow-up whose interaction token has expired
(15 minutes) or been refused goes to the channel, or to the learner's DMs when it is private.
What is sent with no interaction to answer (a plain message, a race's round end, the daily
question) is in posts.py.
"""

from __future__ import annotations

import functools
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import discord

from bot.core.i18n import N_, _, current, use_locale
from bot.core.replies import InputRequest, Message, Reply, Text, Tone

from .api import edit_clicked, follow_up
from .origin import clicked
from .render import Rendered, render, render_modal, render_notice

log = logging.getLogger(__name__)

TOKEN_LIFETIME = 15 * 60
TOKEN_MARGIN = 30  # do not start a request on a token this close to expiry
TOKEN_GONE = {10015, 10062, 50027}  # unknown webhook, unknown interaction, invalid webhook token
APOLOGY = N_("Sorry, something went wrong on our side. Please try again in a moment.")


ANSWERED_BEFORE = 40060  # "Interaction has already been acknowledged": the same interaction came twice


Delivery = TypeVar("Delivery", bound=Callable[..., Awaitable[None]])


def in_its_language(deliver: Delivery) -> Delivery:
    """Render a reply, and the front end's own words around it, in the language the core answered in."""

    @functools.wraps(deliver)
    async def delivering(self: Any, reply: Reply, **kwargs: Any) -> None:
        with use_locale(reply.locale or current()):
            await deliver(self, reply, **kwargs)

    return cast(Delivery, delivering)


def token_gone(exc: discord.HTTPException) -> bool:
    return exc.code in TOKEN_GONE or exc.status == 401


def answered_before(exc: BaseException) -> bool:
    """Whether Discord refused an answer because the interaction was answered already (it was delivered twice)."""
    return isinstance(exc, discord.HTTPException) and exc.code == ANSWERED_BEFORE


ORIGINAL = "@original"  # in place of a message id: the interaction's original response (Discord's own alias)


@dataclass
class ItemRef:
    """Where an item message lives, so a later answer (a command, a DM) can mark it answered.

    Kept light, as thousands are, and made on every click: the interaction's application id and
    token (its webhook is made only to edit) and the message's id, or the channel and id of a plain
    message, never the interaction or message objects discord.py parsed (with them, a busy process
    grew by 12 MB a minute).
    """

    client: discord.Client | None  # whose HTTP session and state the webhook uses
    application_id: int | None
    token: str | None  # the interaction's, which can edit its messages
    message_id: int | str | None  # ORIGINAL: the interaction's original response
    channel_message: discord.PartialMessage | None = None  # a plain message the bot sent (DMs, threads)
    channel_id: int | None = None
    created: float = 0.0

    @classmethod
    def answering(cls, interaction: discord.Interaction[Any], message_id: int | None) -> ItemRef:
        """The message `message_id` sent through the interaction's webhook; None: its original response."""
        return cls(
            interaction.client, interaction.application_id, interaction.token,
            ORIGINAL if message_id is None else message_id, channel_id=interaction.channel_id,
        )  # fmt: skip

    @classmethod
    def posted(cls, message: discord.Message) -> ItemRef:
        """A plain message the bot sent in a channel."""
        partial = message.channel.get_partial_message(message.id)  # type: ignore[union-attr]
        return cls(None, None, None, None, channel_message=partial, channel_id=message.channel.id)

    def usable(self) -> bool:
        if self.channel_message is not None:
            return True
        return time.monotonic() - self.created < TOKEN_LIFETIME - TOKEN_MARGIN

    async def edit(self, rendered: Rendered) -> None:
        kwargs = rendered.edit_kwargs()
        if self.channel_message is not None:
            await self.channel_message.edit(**kwargs)
        elif self.client is not None and self.application_id is not None and self.token is not None:
            webhook = discord.Webhook.partial(self.application_id, self.token, client=self.client)
            # Discord's "@original" stands for the original response wherever a message id goes.
            await webhook.edit_message(cast(int, self.message_id), **kwargs)


class ItemRefs:
    """The latest item message of each quiz, in memory only (a restart forgets them: no harm done)."""

    def __init__(self, size: int = 2000) -> None:
        self._refs: OrderedDict[str, ItemRef] = OrderedDict()
        self._size = size

    def remember(self, session_id: str, ref: ItemRef) -> None:
        ref.created = ref.created or time.monotonic()
        self._refs[session_id] = ref
        self._refs.move_to_end(session_id)
        while len(self._refs) > self._size:
            self._refs.popitem(last=False)

    def get(self, session_id: str | None) -> ItemRef | None:
        if session_id is None:
            return None
        ref = self._refs.get(session_id)
        return ref if ref is not None and ref.usable() else None

    async def edit(self, message: Message) -> bool:
        """Show an item as the core now renders it, wherever it was sent; say whether that worked."""
        ref = self.get(message.session_id)
        if ref is None:
            return False
        rendered = render(message)
        try:
            await ref.edit(rendered)
        except discord.HTTPException as exc:
            log.info("could not update an earlier item message (%s %s)", exc.status, exc.code)
            return False
        return True


class Responder:
    """Answer one interaction, in as many Discord calls as the reply needs."""

    def __init__(self, interaction: discord.Interaction[Any], refs: ItemRefs) -> None:
        self.interaction = interaction
        self.refs = refs
        self.placeholder: int | None = None  # a "working on it" follow-up to replace with the answer
        self.original_note = False  # the command's first answer is a "working on it" note to replace
        self.sent: list[tuple[Message, int | None]] = []
        self.public = False  # the answer is for the channel (a race, a leaderboard): defer in public

    # ------------------------------------------------------------------ acknowledgement

    @property
    def from_message(self) -> bool:
        """Whether the interaction came from a component on a message (which it may then edit): a click or a
        form, the only interactions `keep_clicked_raw` keeps a message for."""
        return clicked(self.interaction) is not None

    @property
    def in_guild(self) -> bool:
        return self.interaction.guild_id is not None

    def ephemeral(self, private: bool) -> bool:
        # In a DM everything is private already, and plain messages outlive the client's reload.
        return private and self.in_guild

    async def defer(self, *, working: str | None = None, progress: bool = False) -> None:
        """Acknowledge now, answer later; `working` is shown meanwhile under a clicked message.

        With `progress`, a command's acknowledgement is the note itself, so `progress()` can edit it.
        """
        response = self.interaction.response
        if response.is_done():
            return
        try:
            if self.from_message:
                await response.defer()
                if working:
                    note = render_notice(working, Tone.INFO)
                    self.placeholder = await follow_up(self.interaction, note, ephemeral=self.ephemeral(True))
            elif working and progress:
                # A command's own answer is the note, edited as the work goes on and replaced at the end.
                note = render_notice(working, Tone.INFO)
                await response.send_message(ephemeral=self.ephemeral(True), **note.send_kwargs())
                self.original_note = True
            else:
                await response.defer(thinking=True, ephemeral=self.ephemeral(not self.public))
        except discord.HTTPException as exc:
            if answered_before(exc):
                raise  # a repeat: the caller logs it once and stops
            log.warning("could not acknowledge an interaction (%s %s)", exc.status, exc.code)

    # ------------------------------------------------------------------ replies

    @in_its_language
    async def deliver(self, reply: Reply, *, clicked: str | None = None) -> None:
        """Send a core reply: the form it asks for, the update of the clicked message, new messages."""
        if reply.form is not None:
            await self._form(reply.form)
            return
        if reply.update is not None:
            await self._update(reply.update, clicked)
        for message in reply.messages:
            await self.send(message, private=reply.private)
        if not self.interaction.response.is_done():
            await self._quiet_ack()

    async def apologise(self) -> None:
        try:
            await self.send(render_notice_message(_(APOLOGY)), private=True)
        except Exception:
            log.exception("could not even apologise for an error")

    async def send(self, message: Message, *, private: bool) -> None:
        rendered = render(message)
        interaction = self.interaction
        ephemeral = self.ephemeral(private)
        try:
            if not interaction.response.is_done():
                callback = await interaction.response.send_message(
                    ephemeral=ephemeral, **rendered.send_kwargs()
                )
                self._sent(message, ItemRef.answering(interaction, None), callback.message_id)
                return
            if self._token_expiring():
                raise _Expired()
            if self.placeholder is not None:
                placeholder, self.placeholder = self.placeholder, None
                await interaction.followup.edit_message(placeholder, **rendered.edit_kwargs())
                self._sent(message, ItemRef.answering(interaction, placeholder), placeholder)
                return
            if self.original_note:
                self.original_note = False
                await interaction.edit_original_response(**rendered.edit_kwargs())
                self._sent(message, ItemRef.answering(interaction, None), None)
                return
            sent = await follow_up(interaction, rendered, ephemeral=ephemeral)
            self._sent(message, ItemRef.answering(interaction, sent), sent)
        except _Expired:
            await self._fallback(message, private)
        except discord.HTTPException as exc:
            if not token_gone(exc):
                raise
            log.info(
                "interaction token no longer valid (%s %s); sending a plain message instead",
                exc.status,
                exc.code,
            )
            await self._fallback(message, private)

    # ------------------------------------------------------------------ internals

    def _sent(self, message: Message, ref: ItemRef, message_id: int | None) -> None:
        self.sent.append((message, message_id))
        if message.kind == "item" and message.session_id:
            self.refs.remember(message.session_id, ref)

    def _token_expiring(self) -> bool:
        age = discord.utils.utcnow() - self.interaction.created_at
        return age.total_seconds() > TOKEN_LIFETIME - TOKEN_MARGIN

    async def _form(self, form: InputRequest) -> None:
        if self.interaction.response.is_done():
            # A modal can only be the first answer to an interaction.
            await self.send(render_notice_message(_("Press **Answer** again to open the form.")), private=True)
            return
        await self.interaction.response.send_modal(render_modal(form))

    async def _update(self, message: Message, clicked: str | None) -> None:
        if not self.from_message:
            if not await self.refs.edit(message) and message.tone != Tone.INFO:
                await self.send(message, private=True)  # feedback must reach the learner somewhere
            return
        rendered = render(message, clicked=clicked)
        interaction = self.interaction
        try:
            if not interaction.response.is_done():
                await edit_clicked(interaction, rendered)
            elif not self._token_expiring():
                await interaction.edit_original_response(**rendered.edit_kwargs())
            else:
                raise _Expired()
        except (_Expired, discord.HTTPException) as exc:
            if isinstance(exc, discord.HTTPException) and not token_gone(exc):
                raise
            log.info("could not update the clicked message (%s)", type(exc).__name__)
            if message.tone != Tone.INFO or message.kind != "item":
                await self._fallback(message, private=True)  # feedback, or a confirmation's outcome, must reach them
            return
        if message.kind == "item" and message.session_id:
            self.refs.remember(message.session_id, ItemRef.answering(interaction, None))

    async def _quiet_ack(self) -> None:
        try:
            if self.from_message:
                await self.interaction.response.defer()
            else:
                await self.interaction.response.send_message(_("Done."), ephemeral=self.ephemeral(True))
        except discord.HTTPException as exc:
            if answered_before(exc):
                raise  # a repeat: the caller logs it once and stops
            log.warning("could not acknowledge an interaction (%s %s)", exc.status, exc.code)

    async def _fallback(self, message: Message, private: bool) -> None:
        """Send where no interaction token is needed: the channel, or the learner's DMs when private."""
        rendered = render(message)
        interaction = self.interaction
        channel = interaction.channel
        try:
            if (
                (private and self.in_guild)
                or channel is None
                or not isinstance(channel, discord.abc.Messageable)
            ):
                sent = await interaction.user.send(**rendered.send_kwargs())
            else:
                sent = await channel.send(**rendered.send_kwargs())
        except discord.HTTPException as exc:
            log.warning("could not deliver a reply at all (%s %s)", exc.status, exc.code)
            return
        self.sent.append((message, sent.id))
        if message.kind == "item" and message.session_id:
            self.refs.remember(message.session_id, ItemRef.posted(sent))


    async def progress(self, text: str) -> None:
        """Say how long work is getting on, in the working note (when there is one)."""
        note = render_notice(text, Tone.INFO)
        try:
            # A "thinking" acknowledgement is replaced by the first follow-up: only a note of ours is edited.
            if self._token_expiring():
                return
            if self.placeholder is not None:
                await self.interaction.followup.edit_message(self.placeholder, **note.edit_kwargs())
            elif self.original_note:
                await self.interaction.edit_original_response(**note.edit_kwargs())
        except discord.HTTPException as exc:
            log.info("could not show progress (%s %s)", exc.status, exc.code)

    async def show_page(self, item: Message, page: int) -> None:
        """Show another step of an item whose menus do not fit in one message."""
        try:
            if self.interaction.response.is_done():
                await self.interaction.edit_original_response(**render(item, page=page).edit_kwargs())
            else:
                await edit_clicked(self.interaction, render(item, page=page))
        except discord.HTTPException as exc:
            log.warning("could not show another step (%s %s)", exc.status, exc.code)


class _Expired(Exception):
    pass


def render_notice_message(markdown: str, tone: Tone = Tone.WARNING) -> Message:
    return Message(kind="notice", parts=(Text(markdown),), tone=tone)
