"""Translate Discord events into core calls, and the core's replies back: no quiz rule lives here."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

import discord
from discord import app_commands

from bot.core import Actor, NotAllowed, QuizError, QuizService, Reply, StaleAction, error_reply
from bot.core import actions as ax
from bot.core.replies import Button, InputRequest, Select

from . import limits as lim
from .components import RUN_FORM_ID, is_quiz_id
from .render import render, render_modal
from .respond import APOLOGY, ItemRef, ItemRefs, Responder, render_notice_message

log = logging.getLogger(__name__)

PLATFORM = "discord"
ACK_WITHIN = 2.0  # seconds; Discord wants an answer within 3
MAX_PACK_BYTES = 5 * 1024 * 1024
MAX_CODE_FILE_BYTES = 1024 * 1024  # the core refuses long code itself; this only caps the download
RUNNING = "⏳ Running your code in the sandbox…"
POINTER = "discord:quiz:{user_id}"  # the learner's latest quiz, for code sent by DM

Call = Callable[[Actor], Awaitable[Reply]]


class SettingsStore(Protocol):
    async def get_setting(self, key: str) -> str | None: ...

    async def set_setting(self, key: str, value: str) -> None: ...


def actor_of(
    user: discord.abc.User,
    guild_id: int | None,
    channel_id: int | None,
    permissions: discord.Permissions | None,
) -> Actor:
    """Build the core's Actor: the guild is the scope (or "dm"); Manage Server makes an admin."""
    is_admin = (
        guild_id is not None
        and permissions is not None
        and (permissions.manage_guild or permissions.administrator)
    )
    return Actor(
        platform=PLATFORM,
        scope=str(guild_id) if guild_id is not None else "dm",
        user_id=str(user.id),
        name=user.display_name,
        is_admin=is_admin,
        channel_id=str(channel_id) if channel_id is not None else None,
    )


def modal_text(data: Any) -> str:
    """Return the text typed in a submitted modal (its first text input)."""
    stack = list(reversed((data or {}).get("components", [])))
    while stack:
        component = stack.pop()
        if component.get("type") == 4 and "value" in component:
            return str(component["value"])
        if "component" in component:
            stack.append(component["component"])
        stack.extend(reversed(component.get("components", [])))
    return ""


def message_ids(message: discord.Message | None) -> set[str]:
    """Return the custom_ids of a message's components."""
    ids: set[str] = set()
    if message is None:
        return ids
    stack: list[Any] = list(message.components)
    while stack:
        component = stack.pop()
        custom_id = getattr(component, "custom_id", None)
        if custom_id:
            ids.add(custom_id)
        stack.extend(getattr(component, "children", []) or [])
    return ids


class QuizHandler:
    """The one place where Discord events become core calls and core replies become Discord calls."""

    def __init__(
        self, *, service: QuizService, settings_store: SettingsStore, ack_within: float = ACK_WITHIN
    ) -> None:
        self.service = service
        self.store = settings_store
        self.refs = ItemRefs()
        self.ack_within = ack_within
        self._anchored: OrderedDict[str, None] = OrderedDict()

    # ------------------------------------------------------------------ actors

    def actor(self, interaction: discord.Interaction[Any]) -> Actor:
        permissions = interaction.permissions if interaction.guild_id is not None else None
        return actor_of(interaction.user, interaction.guild_id, interaction.channel_id, permissions)

    # ------------------------------------------------------------------ interactions

    async def run(
        self,
        interaction: discord.Interaction[Any],
        call: Call,
        *,
        slow: bool = False,
        working: str | None = None,
        clicked: str | None = None,
    ) -> None:
        """Acknowledge in time, call the core, deliver its reply; never leave the person without an answer."""
        responder = Responder(interaction, self.refs)
        try:
            actor = self.actor(interaction)
            if slow:
                await responder.defer(working=working)
            reply = await self._within_ack(responder, call(actor))
        except QuizError as exc:
            reply = error_reply(exc)
        except Exception:
            log.exception("error while handling a %s interaction", interaction.type.name)
            await responder.apologise()
            return
        try:
            await responder.deliver(reply, clicked=clicked)
        except Exception:
            log.exception("could not deliver a reply to a %s interaction", interaction.type.name)
            await responder.apologise()
            return
        await self._anchor(interaction, [m for m, _ in responder.sent])

    async def _within_ack(self, responder: Responder, work: Awaitable[Reply]) -> Reply:
        task = asyncio.ensure_future(work)
        try:
            done, _ = await asyncio.wait({task}, timeout=self.ack_within)
            if not done:
                await responder.defer()
            return await task
        finally:
            task.cancel()  # only does something when we were cancelled ourselves

    async def component(
        self, interaction: discord.Interaction[Any], custom_id: str, values: Sequence[str]
    ) -> None:
        slow = ax.is_slow(custom_id)
        await self.run(
            interaction,
            lambda actor: self.service.act(actor, custom_id, list(values)),
            slow=slow,
            working=RUNNING if slow else None,
            clicked=custom_id,
        )

    async def modal(self, interaction: discord.Interaction[Any]) -> None:
        """Handle a submitted form, whether it was opened before or after a restart."""
        data: Any = interaction.data or {}
        custom_id = str(data.get("custom_id", ""))
        text = modal_text(data)
        if custom_id == RUN_FORM_ID:
            await self.run(
                interaction, lambda actor: self.service.run_code(actor, text), slow=True, working=RUNNING
            )
        elif is_quiz_id(custom_id):
            slow = ax.is_slow(custom_id)
            await self.run(
                interaction,
                lambda actor: self.service.act(actor, custom_id, [text]),
                slow=slow,
                working=RUNNING if slow else None,
                clicked=custom_id,
            )

    async def page(self, interaction: discord.Interaction[Any], session_id: str, page: int) -> None:
        """Show another step of an item whose menus do not fit in one message."""

        async def call(actor: Actor) -> Reply:
            reply = await self.service.current(actor)
            item = next((m for m in reply.messages if m.kind == "item"), None)
            shown = message_ids(interaction.message)
            actions = {c.action for c in item.controls() if isinstance(c, Button | Select)} if item else set()
            if item is None or item.session_id != session_id or not (actions & shown):
                raise StaleAction()
            return Reply(update=item)

        responder = Responder(interaction, self.refs)
        try:
            reply = await self._within_ack(responder, call(self.actor(interaction)))
        except QuizError as exc:
            await self._deliver_or_apologise(responder, error_reply(exc))
            return
        except Exception:
            log.exception("error while showing another step")
            await responder.apologise()
            return
        assert reply.update is not None
        try:
            if interaction.response.is_done():
                await interaction.edit_original_response(**render(reply.update, page=page).edit_kwargs())
            else:
                await interaction.response.edit_message(**render(reply.update, page=page).edit_kwargs())
        except discord.HTTPException as exc:
            log.warning("could not show another step (%s %s)", exc.status, exc.code)

    async def _deliver_or_apologise(self, responder: Responder, reply: Reply) -> None:
        try:
            await responder.deliver(reply)
        except Exception:
            log.exception("could not deliver a reply")
            await responder.apologise()

    # ------------------------------------------------------------------ commands

    async def command(self, interaction: discord.Interaction[Any], call: Call, *, slow: bool = False) -> None:
        await self.run(interaction, call, slow=slow)

    async def open_form(
        self, interaction: discord.Interaction[Any], custom_id: str, title: str, label: str
    ) -> None:
        try:
            await interaction.response.send_modal(
                render_modal(InputRequest(custom_id, title, label, "code", placeholder="print('hello')"))
            )
        except discord.HTTPException as exc:
            log.warning("could not open a form (%s %s)", exc.status, exc.code)

    async def load_pack(self, actor: Actor, attachment: discord.Attachment, force: bool) -> Reply:
        """`/quiz pack load`: check the attachment, then hand its bytes to the core."""
        name = attachment.filename
        if not self.service.is_admin(actor):
            raise NotAllowed("load packs")
        if not name.lower().endswith((".yaml", ".yml", ".zip")):
            raise QuizError(f"Attach the pack as a `.yaml` or `.zip` file; `{name}` is neither.")
        if attachment.size > MAX_PACK_BYTES:
            raise QuizError(
                f"`{name}` is {attachment.size / 1024 / 1024:.1f} MB; a pack may be at most "
                f"{MAX_PACK_BYTES // 1024 // 1024} MB."
            )
        try:
            data = await attachment.read()
        except discord.HTTPException as exc:
            raise QuizError("The attachment could not be downloaded from Discord; please try again.") from exc
        return await self.service.load_pack(actor, name, data, force=force)

    async def run_file(self, actor: Actor, attachment: discord.Attachment) -> Reply:
        return await self.service.run_code(actor, await read_code_file(attachment))

    async def complete(
        self,
        interaction: discord.Interaction[Any],
        current: str,
        names: Callable[[str], Awaitable[list[str]]],
    ) -> list[app_commands.Choice[str]]:
        try:
            found = await names(self.actor(interaction).scope)
        except Exception:
            log.exception("autocomplete failed")
            return []
        needle = current.casefold()
        return [
            app_commands.Choice(name=lim.clip_plain(n, lim.CHOICE_NAME), value=n[: lim.CHOICE_NAME])
            for n in found
            if needle in n.casefold()
        ][: lim.AUTOCOMPLETE_CHOICES]

    # ------------------------------------------------------------------ messages (code in DMs and threads)

    async def message(self, message: discord.Message) -> None:
        """Take a ```python block or a .py file sent in a DM, or in the thread the quiz lives in."""
        if message.author.bot or message.webhook_id is not None:
            return
        files = [a for a in message.attachments if a.filename.lower().endswith(".py")]
        if not files and "```" not in message.content:
            return  # just talk
        # An uncached guild's channel is a PartialMessageable: it still knows its guild id.
        guild_id = message.guild.id if message.guild else getattr(message.channel, "guild_id", None)
        in_dm = guild_id is None
        actor = actor_of(message.author, guild_id, message.channel.id, None)
        session_id = await self._session_for_message(actor, message, in_dm)
        if session_id is None and not in_dm:
            return  # a code block in some channel or thread that is not this learner's quiz
        try:
            text = await read_code_file(files[0]) if files else message.content
            async with message.channel.typing():
                reply = await self.service.submit_text(actor, text, session_id=session_id, code_only=True)
        except QuizError as exc:
            reply = error_reply(exc)
        except Exception:
            log.exception("error while grading code sent as a message")
            reply = Reply(messages=(render_notice_message(APOLOGY),))
        try:
            if reply.update is not None:
                await self.refs.edit(reply.update)
            for number, core_message in enumerate(reply.messages):
                kwargs = render(core_message).send_kwargs()
                if number == 0:
                    kwargs.update(reference=message, mention_author=False)
                sent = await message.channel.send(**kwargs)
                if core_message.kind == "item" and core_message.session_id:
                    self.refs.remember(core_message.session_id, ItemRef(None, None, channel_message=sent))
        except discord.HTTPException as exc:
            log.warning("could not answer a message (%s %s)", exc.status, exc.code)

    async def _session_for_message(self, actor: Actor, message: discord.Message, in_dm: bool) -> str | None:
        if in_dm:
            session = await self.service.active_session(actor)
            if session is not None:
                return session.id
            # A quiz started in a server: its scope is the guild, so find it through the pointer.
            return await self.store.get_setting(POINTER.format(user_id=actor.user_id))
        session = await self.service.active_session(actor)
        if session is None:
            return None
        anchor = session.anchor
        if anchor.get("thread") == "1" and anchor.get("channel_id") == str(message.channel.id):
            return session.id
        return None

    # ------------------------------------------------------------------ where quizzes live

    async def _anchor(self, interaction: discord.Interaction[Any], sent: Sequence[Any]) -> None:
        """Remember where a new quiz lives (its channel, whether that is a thread) and point the learner at it."""
        for message in sent:
            session_id = getattr(message, "session_id", None)
            if getattr(message, "kind", None) != "item" or not session_id or session_id in self._anchored:
                continue
            self._anchored[session_id] = None
            while len(self._anchored) > 5000:
                self._anchored.popitem(last=False)
            channel = interaction.channel
            try:
                await self.service.set_anchor(
                    session_id,
                    platform=PLATFORM,
                    channel_id=str(interaction.channel_id or ""),
                    guild_id=str(interaction.guild_id or ""),
                    thread="1" if isinstance(channel, discord.Thread) else "0",
                )
                await self.store.set_setting(POINTER.format(user_id=interaction.user.id), session_id)
            except Exception:
                log.exception("could not remember where a quiz lives")


async def read_code_file(attachment: discord.Attachment) -> str:
    if attachment.size > MAX_CODE_FILE_BYTES:
        raise QuizError(f"`{attachment.filename}` is too large to be code for an exercise.")
    try:
        data = await attachment.read()
    except discord.HTTPException as exc:
        raise QuizError("The file could not be downloaded from Discord; please try again.") from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise QuizError(f"`{attachment.filename}` is not UTF-8 text.") from exc
