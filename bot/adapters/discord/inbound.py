"""Every Discord event becomes one core request; the reply goes out through `deliver`. No quiz rule here."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

import discord
from discord import app_commands

from bot.core import Actor, QuizError, QuizService, Reply, StaleAction, error_reply
from bot.core import actions as ax
from bot.core import queries as q
from bot.core import requests as rq
from bot.core.dispatch import typed_id
from bot.core.errors import NotAddressed
from bot.core.i18n import _, number, use_locale
from bot.core.importing import UPLOAD_SUFFIXES
from bot.core.replies import Button, InputRequest, Select
from bot.metrics import replied

from . import limits as lim
from .api import SettingsStore
from .deliver import ItemRefs, Responder, answered_before
from .origin import (
    PAGE_ID,
    RUN_FORM_ID,
    actor_of,
    anchor_of,
    clicked,
    message_ids,
    modal_text,
    note_language,
    where_of,
)
from .posts import ChannelResponder, DirectResponder
from .render import render_modal

log = logging.getLogger(__name__)
REPEATED = "interaction %s was already answered (Discord delivered it twice); the repeat is ignored"

ACK_WITHIN = 2.0  # seconds; Discord wants an answer within 3
MAX_CODE_FILE_BYTES = 1024 * 1024  # the core refuses long code itself; this only caps the download
MAX_LEARNER_LOCKS = 10_000
PUBLIC_REQUESTS = (rq.RaceStart, rq.RaceStop, rq.Leaderboard)  # answered in the channel, for everyone


Asked = rq.Request | Callable[[Actor], Awaitable[rq.Request]]  # a request, or one made once a download is done


class Inbound:
    """The one place where Discord events become core requests, one at a time per learner."""

    def __init__(
        self, *, service: QuizService, settings_store: SettingsStore, ack_within: float = ACK_WITHIN
    ) -> None:
        self.service = service
        self.store = settings_store
        self.refs = ItemRefs()
        self.ack_within = ack_within
        self._anchored: OrderedDict[str, None] = OrderedDict()
        self._learners: dict[str, asyncio.Lock] = {}

    def actor(self, interaction: discord.Interaction[Any]) -> Actor:
        permissions = interaction.permissions if interaction.guild_id is not None else None
        return actor_of(
            interaction.user, interaction.guild_id, interaction.channel_id, permissions,
            locale=interaction.locale.value, server_locale=interaction.guild_locale.value if interaction.guild_locale else None,
        )  # fmt: skip

    def _learner(self, actor: Actor) -> asyncio.Lock:
        """One lock per learner: two quick clicks are handled in the order they came."""
        lock = self._learners.get(actor.key)
        if lock is None:
            if len(self._learners) > MAX_LEARNER_LOCKS:
                self._learners = {k: v for k, v in self._learners.items() if v.locked()}
            lock = self._learners[actor.key] = asyncio.Lock()
        return lock

    # ------------------------------------------------------------------ interactions

    async def handle(
        self,
        interaction: discord.Interaction[Any],
        request: rq.Request | Callable[[Actor], Awaitable[rq.Request]],
        *,
        clicked: str | None = None,
        working: str | None = None,
    ) -> None:
        """Acknowledge in time, ask the core, deliver its reply; never leave the person without an answer.

        A request that needs a download first comes as a function of the actor; `working` is the note
        shown meanwhile (and edited with progress). Until the core answers in the learner's language,
        notes are in the learner's own choice when this process remembers it, else their Discord client's.
        """
        with use_locale(await note_language(self.service, interaction)):
            await self._handle(interaction, request, clicked=clicked, working=working)

    async def _handle(self, interaction: discord.Interaction[Any], request: Asked, *, clicked: str | None, working: str | None) -> None:
        responder = Responder(interaction, self.refs)
        responder.public = isinstance(request, PUBLIC_REQUESTS)
        actor = self.actor(interaction)
        try:
            async with self._learner(actor):
                if callable(request):
                    await responder.defer(working=_(working) if working else None, progress=working is not None)
                    request = await request(actor)
                note = rq.working_note(request)
                if isinstance(request, rq.Act) and note is not None:
                    # code in a form: "Running your code" only once its grading is recorded (`Flow.waiting`)
                    request = replace(request, progress=lambda text: responder.defer(working=text))
                elif note is not None:
                    await responder.defer(working=note, progress=isinstance(request, rq.PackLoad))
                if isinstance(request, rq.PackLoad) and request.progress is None:
                    request = replace(request, progress=responder.progress)
                reply = await self._within_ack(responder, self.service.handle(actor, request))
                await responder.deliver(reply, clicked=clicked)
                replied()
        except QuizError as exc:
            await self._deliver_or_apologise(responder, error_reply(exc))
            replied()
            return
        except Exception as exc:
            if answered_before(exc):
                log.warning(REPEATED, interaction.id)
                return
            log.exception("error while handling a %s interaction", interaction.type.name)
            await responder.apologise()
            replied()
            return
        await self._anchor(interaction, [m for m, _ in responder.sent])
        if isinstance(request, rq.RaceStart):
            await self._race_anchor(interaction, responder.sent)

    async def _within_ack(self, responder: Responder, work: Awaitable[Reply]) -> Reply:
        task = asyncio.ensure_future(work)
        try:
            done, _ = await asyncio.wait({task}, timeout=self.ack_within)
            if not done:
                await responder.defer()
            return await task
        finally:
            task.cancel()  # only does something when we were cancelled ourselves

    async def click(self, interaction: discord.Interaction[Any]) -> None:
        """Route a button or menu by its custom_id: a step of a long item, else an action for the core.

        The core routes a quiz's, a race's, a daily button's or a confirmation's action, and answers
        any other id (a button of an older version, a forged id) with "not one of this bot's".
        """
        data: Any = interaction.data or {}
        custom_id = str(data.get("custom_id", ""))
        if (page := PAGE_ID.fullmatch(custom_id)) is not None:
            await self.page(interaction, page["session"], int(page["page"]))
        else:
            values = tuple(str(v) for v in data.get("values") or ())
            await self.handle(interaction, rq.Act(custom_id, values, key=str(interaction.id)), clicked=custom_id)

    async def modal(self, interaction: discord.Interaction[Any]) -> None:
        """Handle a submitted form, whether it was opened before or after a restart."""
        data: Any = interaction.data or {}
        custom_id = str(data.get("custom_id", ""))
        text = modal_text(data)
        if custom_id == RUN_FORM_ID:
            await self.handle(interaction, rq.RunCode(text))
        else:  # a quiz's or race's form; the core answers any other id with "not one of this bot's"
            await self.handle(interaction, rq.Act(custom_id, (text,), key=str(interaction.id)), clicked=custom_id)

    async def page(self, interaction: discord.Interaction[Any], session_id: str, page: int) -> None:
        """Show another step of an item whose menus do not fit in one message."""
        with use_locale(await note_language(self.service, interaction)):
            await self._page(interaction, session_id, page)

    async def _page(self, interaction: discord.Interaction[Any], session_id: str, page: int) -> None:
        responder = Responder(interaction, self.refs)
        # The quiz the button names, shown again (the Resume button's action): the core refuses it to
        # anyone but its owner ("this quiz belongs to ..."), as it does every other control of the quiz.
        shown_again = rq.Act(ax.make(session_id, 0, ax.CURRENT), key=str(interaction.id))
        try:
            reply = await self._within_ack(responder, self.service.handle(self.actor(interaction), shown_again))
            item = next((m for m in reply.messages if m.kind == "item"), None)
            shown = message_ids(clicked(interaction))
            actions = {c.action for c in item.controls() if isinstance(c, Button | Select)} if item else set()
            if item is None or item.session_id != session_id or not (actions & shown):
                raise StaleAction()
        except QuizError as exc:
            await self._deliver_or_apologise(responder, error_reply(exc))
            replied()
            return
        except Exception:
            log.exception("error while showing another step")
            await responder.apologise()
            replied()
            return
        with use_locale(reply.locale or interaction.locale.value):
            await responder.show_page(item, page)
        replied()

    async def _deliver_or_apologise(self, responder: Responder | ChannelResponder | DirectResponder, reply: Reply) -> None:
        try:
            await responder.deliver(reply)
        except Exception as exc:
            if answered_before(exc):
                log.warning(REPEATED, responder.interaction.id if isinstance(responder, Responder) else "?")
                return
            log.exception("could not deliver a reply")
            await responder.apologise()

    # ------------------------------------------------------------------ commands

    async def open_form(self, interaction: discord.Interaction[Any], custom_id: str, title: str, label: str) -> None:
        try:
            await interaction.response.send_modal(
                render_modal(InputRequest(custom_id, title, label, "code", placeholder="print('hello')"))
            )
        except discord.HTTPException as exc:
            log.warning("could not open a form (%s %s)", exc.status, exc.code)

    def pack_load(self, attachment: discord.Attachment, force: bool) -> Callable[[Actor], Awaitable[rq.Request]]:
        """`/quiz pack load`: check the attachment, download it, and ask the core to load it."""

        async def request(actor: Actor) -> rq.Request:
            name = attachment.filename
            self.service.may_load_packs(actor)
            if not name.lower().endswith(UPLOAD_SUFFIXES):
                known = ", ".join(f"`{suffix}`" for suffix in UPLOAD_SUFFIXES)
                raise QuizError(_("Attach the pack as a `.yaml` or `.zip` file, or a quiz file to convert ({known}).").format(known=known))
            if attachment.size > lim.MAX_PACK_BYTES:
                raise QuizError(
                    _("`{name}` is {size} MB; a pack may be at most {most} MB.").format(
                        name=name, size=number(attachment.size / 1024 / 1024, 1), most=lim.MAX_PACK_BYTES // 1024 // 1024
                    )
                )
            try:
                data = await attachment.read()
            except discord.HTTPException as exc:
                raise QuizError(_("The attachment could not be downloaded from Discord; please try again.")) from exc
            return rq.PackLoad(name, data, force)

        return request

    def run_file(self, attachment: discord.Attachment) -> Callable[[Actor], Awaitable[rq.Request]]:
        async def request(actor: Actor) -> rq.Request:
            return rq.RunCode(await read_code_file(attachment))

        return request

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
        needle = typed_id(current).casefold()  # as the command will read it: ` De` and a pasted zero-width space too
        return [
            app_commands.Choice(name=lim.clip_plain(n, lim.CHOICE_NAME), value=n[: lim.CHOICE_NAME])
            for n in found
            if needle in n.casefold()
        ][: lim.AUTOCOMPLETE_CHOICES]

    # ------------------------------------------------------------------ messages (code in DMs and threads)

    async def message(self, message: discord.Message) -> None:
        """Take a ```python block or a .py file: the core decides from where it was sent what it answers."""
        if message.author.bot or message.webhook_id is not None:
            return
        files = [a for a in message.attachments if a.filename.lower().endswith(".py")]
        if not files and "```" not in message.content:
            return  # just talk
        # An uncached guild's channel is a PartialMessageable: it still knows its guild id.
        guild_id = message.guild.id if message.guild else getattr(message.channel, "guild_id", None)
        preferred = message.guild.preferred_locale.value if message.guild else None
        actor = actor_of(message.author, guild_id, message.channel.id, None, server_locale=preferred)
        async def typing(note: str) -> None:  # once the core took the code as an answer: it runs now
            await message.channel.typing()

        try:
            async with self._learner(actor):
                text = await read_code_file(files[0]) if files else message.content
                request = rq.Submit(text, code_only=True, key=f"m{message.id}", progress=typing, where=where_of(message))
                reply = await self.service.handle(actor, request)
        except NotAddressed:
            return  # a code block in some channel or thread that is not this learner's quiz
        except QuizError as exc:
            reply = error_reply(exc)
        except Exception:
            log.exception("error while grading code sent as a message")
            await ChannelResponder(message, self.refs).apologise()
            replied()
            return
        # The daily question's feedback is private; a quiz's shows in its thread or DM.
        responder = DirectResponder(message) if reply.aside else ChannelResponder(message, self.refs)
        await self._deliver_or_apologise(responder, reply)
        replied()

    # ------------------------------------------------------------------ where quizzes live

    async def _anchor(self, interaction: discord.Interaction[Any], sent: Sequence[Any]) -> None:
        """Remember where a new quiz lives (its channel, whether that is a thread)."""
        for message in sent:
            session_id = getattr(message, "session_id", None)
            if getattr(message, "kind", None) != "item" or not session_id or session_id in self._anchored:
                continue
            self._anchored[session_id] = None
            while len(self._anchored) > 5000:
                self._anchored.popitem(last=False)
            try:
                await self.service.ask(q.RememberQuiz(session_id, anchor_of(interaction)))
            except Exception:
                log.exception("could not remember where a quiz lives")

    async def _race_anchor(self, interaction: discord.Interaction[Any], sent: Sequence[tuple[Any, int | None]]) -> None:
        """Remember the channel message of a new race's first round, so closing the round can edit it."""
        for message, message_id in sent:
            if getattr(message, "kind", None) == "item" and message.session_id and message_id is not None:
                try:
                    anchor = {"channel_id": str(interaction.channel_id or ""), "message_id": str(message_id)}
                    await self.service.ask(q.RememberRace(message.session_id, anchor))
                except Exception:
                    log.exception("could not remember where a race's round was posted")


async def read_code_file(attachment: discord.Attachment) -> str:
    if attachment.size > MAX_CODE_FILE_BYTES:
        raise QuizError(_("`{name}` is too large to be code for an exercise.").format(name=attachment.filename))
    try:
        data = await attachment.read()
    except discord.HTTPException as exc:
        raise QuizError(_("The file could not be downloaded from Discord; please try again.")) from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise QuizError(_("`{name}` is not UTF-8 text.").format(name=attachment.filename)) from exc

