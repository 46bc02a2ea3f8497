"""What people type: the one `/quiz` slash command, and code or pack files sent as messages.

The command's text is read with the core's command reader; what is Slack's own lives here: a user
named as a mention (`<@U123|ada>`), where each request's reply is shown (`ROUTES`), pack files
fetched from Slack, the export sent as a file to the DM, a code message's `Where`, what a message
is to the bot (`message_kind`), and a command's acknowledgement.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from bot.core import commands
from bot.core import queries as q
from bot.core import requests as rq
from bot.core.errors import NotAddressed, QuizError
from bot.core.i18n import N_, _, current, ngettext, use_locale
from bot.core.importing import UPLOAD_SUFFIXES
from bot.core.model import Actor, Where
from bot.core.replies import Attachment, Message, Reply, Text, Tone, notice
from bot.core.service import QuizService, error_reply

from . import render as bk
from .api import Place, SlackApi, SlackCallFailed
from .deliver import ACK_LANGUAGE_S, Courier, anchor_of
from .limits import PACK_FILE_LIMIT, PY_FILE_LIMIT
from .markup import clip, unescape
from .origin import Origin, from_command, preformatted_code, valid_text

log = logging.getLogger("quizbot.slack")
PACK_SUFFIXES = UPLOAD_SUFFIXES  # packs, and other tools' quiz files to convert
_PACK_LOAD = re.compile(r"\bpack\s+load\b", re.I)
_FORCE = re.compile(r"(?:^|\s)(?:--)?force\b", re.I)
DM_HINT = N_(
    "I read a ```python block or a .py file as your answer to a code question. For everything else use "
    "`/quiz` (try `/quiz help`), or the buttons under a question."
)


def pack_form_problem(files: list[dict[str, Any]]) -> tuple[str, dict[str, str]]:
    """What is wrong with the files chosen in the pack form, as a message id and its values; ("", {}): nothing."""
    if not files:
        return N_("Choose a pack (.yaml, .zip) or a quiz file to convert."), {}
    for file in files:
        full = str(file.get("name") or file.get("title") or "")
        name = clip(full, 100)  # as shown in the form
        if not full.lower().endswith(PACK_SUFFIXES):
            known = ", ".join(PACK_SUFFIXES[3:])
            return N_("“{name}” is not a pack: choose a .yaml, .yml or .zip file, or a quiz file to convert ({known})."), {"name": name, "known": known}
        size = file.get("size")
        if isinstance(size, int) and size > PACK_FILE_LIMIT:
            return N_("“{name}” is larger than {size}, the most a pack file may be."), {"name": name, "size": f"{PACK_FILE_LIMIT // 2**20} MiB"}
    return "", {}


# Where the reply to each typed request is shown: the quiz's own place, or only to the person.
QUIZ, CURRENT, TELL, KEEP, PUBLIC = "quiz", "current", "tell", "keep", "public"
ROUTES: dict[type, str] = {
    rq.Start: QUIZ,
    rq.OpenAnswer: CURRENT,
    rq.Current: CURRENT,
    rq.Hint: CURRENT,
    rq.Skip: CURRENT,
    rq.Stop: CURRENT,
    rq.RunCode: KEEP,
    rq.Stats: TELL,
    rq.Packs: TELL,
    rq.Help: TELL,
    rq.PackEnable: TELL,
    rq.PackRemove: TELL,
    rq.DailyReview: QUIZ,
    # The social side: a race's start and stop and the leaderboard are shown to the channel; privacy is private.
    rq.RaceStart: PUBLIC,
    rq.RaceStop: PUBLIC,
    rq.Leaderboard: PUBLIC,
    rq.Privacy: TELL,
}
ADMIN_REQUESTS = (rq.PackEnable, rq.PackRemove, rq.PackLoad, rq.DailySet, rq.DailyOff, rq.DailyNow, rq.Report)

# With "Escape channels, users, and links" on, Slack sends a mention as <@U123|name>.
_MENTION = re.compile(r"^<@([A-Z0-9]+)(?:\|[^>]*)?>$")


def mentioned_user(word: str) -> str | None:
    """Return the user id in a Slack mention such as `<@U123|ada>`."""
    match = _MENTION.match(word)
    return match.group(1) if match else None


def parse(text: str) -> commands.Parsed:
    """Read `/quiz` text as the person typed it (Slack sends `&amp;` and links escaped); the first word picks the subcommand.

    Mentions (`<@U123|ada>`, `<#C123|study>`) stay as Slack sends them.
    """
    return commands.parse(unescape(text), user_of=mentioned_user)


# What a message is to the bot (`message_kind`).
CHAT, DM_NOTE, PACK_UPLOAD, CODE = "chat", "dm", "pack", "code"


def message_kind(origin: Origin, event: dict[str, Any]) -> str:
    """What a message is to the bot: a pack upload or a note in its DM, code that may be an answer, or chat.

    Code counts in the DM and in a thread (a quiz's or a daily post's: the core decides); anything
    else in a channel is conversation, with nothing to do. Only code waits for its grading row
    before Slack has its 200 (`Inbound.message_then_ack`).
    """
    text = str(event.get("text") or "")
    files = [f for f in event.get("files") or [] if isinstance(f, dict)]
    in_dm = event.get("channel_type") == "im"
    if in_dm and files and _PACK_LOAD.search(text):
        return PACK_UPLOAD
    code = "```" in text or any(str(f.get("name", "")).lower().endswith(".py") for f in files)
    if code and (in_dm or origin.thread_ts):
        return CODE
    return DM_NOTE if in_dm else CHAT


def telling(stored: asyncio.Event, told: list[str]) -> Callable[[str], Awaitable[None]]:
    """A run's `progress`: keep the note (`told`) and set `stored` (the run is recorded, Slack may have its ack)."""

    async def running(note: str) -> None:
        told.append(note)
        stored.set()

    return running


class Commands:
    """Run a `/quiz` request after its acknowledgement, and show the reply where it belongs."""

    def __init__(self, *, service: QuizService, api: SlackApi, courier: Courier) -> None:
        self.service = service
        self.api = api
        self.courier = courier

    async def acknowledge(self, ack: Callable[..., Awaitable[Any]], body: dict[str, Any]) -> None:
        """A command's acknowledgement: a usage note, the help, "Running your code", or nothing.

        Only a note asks for the person's language, and waits ACK_LANGUAGE_S for it at most (users.info
        may be rate limited): Slack shows a timeout for a command not acknowledged within 3 seconds.
        """
        text = str(body.get("text", ""))
        command = parse(text)
        if not (isinstance(command, commands.Usage | rq.Help) or (isinstance(command, rq.RunCode) and command.text.strip())):
            await ack()
            return
        with use_locale(await self.courier.language(from_command(body), within=ACK_LANGUAGE_S)):
            command = parse(text)  # a usage note in the person's language
            if isinstance(command, commands.Usage):
                shown = await self.service.ask(q.HelpText())
                problem = Text("⚠️ " + _("{problem} Usage:").format(problem=command.problem))
                await ack(**_ephemeral(Message(kind="help", title=shown.title, parts=(problem, *shown.parts))))
            elif isinstance(command, rq.Help):
                await ack(**_ephemeral(await self.service.ask(q.HelpText())))
            else:
                await ack(text=_(rq.RUNNING), response_type="ephemeral")

    async def run(self, origin: Origin, request: rq.Request, *, progress: Callable[[str], Awaitable[None]] | None = None) -> None:
        if isinstance(request, rq.RunCode) and not request.text.strip():
            await self.courier.open(origin, bk.run_view(bk.metadata(r=origin.response_url, c=origin.channel)))
            return
        if isinstance(request, rq.RunCode):
            request = replace(request, progress=progress)  # told once the run is recorded (`Inbound.command_then_ack`)
        if isinstance(request, rq.Stats):  # named as Slack shows the person: the picture cannot render a mention
            request = rq.Stats(request.user_id, await self.api.user_name(request.user_id or origin.user))
        if isinstance(request, rq.MyDataExport | rq.MyDataDelete):
            await self.my_data(origin, request)
            return
        if isinstance(request, rq.Report):  # the summary and chart privately; the CSV files in the admin's DM
            reply = await self.service.handle(await self.admin_actor(origin), request)
            await self.courier.tell(origin, await self.files_to_dm(origin, reply))
            return
        admin = isinstance(request, ADMIN_REQUESTS) or (isinstance(request, rq.Language) and request.server)
        actor = await self.admin_actor(origin) if admin else origin.actor()
        route = ROUTES.get(type(request), TELL)
        if route == CURRENT:
            if isinstance(request, rq.Skip | rq.Stop) and origin.via_command:  # delivered twice: acts once
                request = type(request)(key=origin.trigger_id)
            reply = await self.service.handle(actor, request)
            place, item_ts = anchor_of(reply.anchor)
            await self.courier.deliver(origin, reply, place, update_ts=item_ts)
        elif route == PUBLIC:
            if isinstance(request, rq.RaceStart) and origin.in_dm:
                raise QuizError(_("Races run in a channel: start one in a workspace channel the bot is in."))
            if origin.channel and not origin.in_dm:
                await self.may_post(origin.channel)  # before a race starts that nobody there could see
            await self.courier.announce(origin, await self.service.handle(actor, request))
        elif route == QUIZ:
            private = isinstance(request, rq.DailyReview)  # a personal review is private wherever it is asked for
            await self.in_quiz_home(origin, await self.service.handle(actor, request), private=private)
        else:
            await self.courier.tell(origin, await self.service.handle(actor, request), persistent=route == KEEP)

    async def may_post(self, channel: str) -> None:
        """Refuse a public request in a channel the bot is not in (conversations.info); unchecked if Slack cannot say."""
        try:
            found = (await self.api.call("conversations.info", channel=channel)).get("channel")
        except SlackCallFailed as exc:
            if exc.error != "channel_not_found":
                return
            found = {"is_member": False}  # a private channel (or a group DM) hides from a bot outside it
        if isinstance(found, dict) and found.get("is_member") is False:
            raise QuizError(_("I'm not a member of this channel, so nobody would see that here: invite me with `/invite`, then try again."))

    async def publish_home(self, origin: Origin) -> None:
        """The person's Home tab: progress, leaderboard place, a Start per enabled pack."""
        actor = origin.actor()
        stats = await self.service.handle(actor, rq.Stats(picture=False))
        packs = await self.service.ask(q.PackList(actor.scope))
        rank = await self.service.ask(q.Rank(actor))
        await self.api.publish_home(origin.user, bk.home_view(stats.messages[0] if stats.messages else None, packs, rank=rank))

    async def refresh_home(self, origin: Origin) -> None:
        """Publish Home anew after a press on it failed; a failure here does not hide the first one."""
        try:
            await self.publish_home(origin)
        except (QuizError, SlackCallFailed) as exc:
            log.warning("could not refresh the Home tab of %s: %s", origin.user, exc)

    async def in_quiz_home(self, origin: Origin, reply: Any, place: Place | None = None, *, private: bool = False) -> None:
        """Show a reply that starts a quiz where the quiz runs (a thread, the DM); anything else privately."""
        if not any(m.kind == "item" for m in reply.messages):
            await self.courier.tell(origin, reply)
            return
        note = None
        if place is None:
            place, note = await self.courier.quiz_home(origin, private=private)
        await self.courier.deliver(origin, reply, place)
        if note:
            await self.courier.tell(origin, notice(note))

    async def load_packs(self, origin: Origin, files: list[dict[str, Any]], *, force: bool) -> None:
        actor = await self.admin_actor(origin)
        self.service.may_load_packs(actor)
        packs = [f for f in files if str(f.get("name", "")).lower().endswith(PACK_SUFFIXES)]
        if not packs:
            raise QuizError(
                _("Attach the pack as a .yaml, .yml or .zip file, or a quiz file to convert ({known}).").format(known=", ".join(PACK_SUFFIXES[3:]))
            )
        for file in packs:
            name = str(file.get("name", "") or _("the file"))
            try:
                name, data = await self.api.download(file, limit=PACK_FILE_LIMIT)
                reply = await self.service.handle(actor, rq.PackLoad(name, data, force))
            except QuizError as exc:
                reply = error_reply(exc)
            except SlackCallFailed as exc:
                reply = notice(_("I could not fetch `{name}` from Slack: {error}.").format(name=name, error=exc.error), tone=Tone.ERROR)
            await self.courier.tell(origin, reply, persistent=True)

    async def my_data(self, origin: Origin, request: rq.MyDataExport | rq.MyDataDelete) -> None:
        """`/quiz my-data`: the export goes to the person's DM as a file; deleting asks first, privately."""
        if request.user_id:
            request = replace(request, name=f"<@{request.user_id}>")
            actor = await self.admin_actor(origin)
        else:
            actor = origin.actor()
        await self.courier.tell(origin, await self.files_to_dm(origin, await self.service.handle(actor, request)))

    async def files_to_dm(self, origin: Origin, reply: Reply) -> Reply:
        """Upload the reply's files to the person's DM (Slack has no private file); the messages say where they are.

        A file shared in a channel is seen by everyone in it; a data export or a class's marks are not for them.
        """
        files = [part for m in reply.messages for part in m.parts if isinstance(part, Attachment)]
        if not files:
            return reply
        channel = await self.api.open_dm(origin.user)
        for part in files:
            await self.api.upload(channel, part.filename, part.data)
        sent = ", ".join(f"`{part.filename}`" for part in files)
        with use_locale(reply.locale or current()):
            where = ngettext(
                "The file {names} is in our direct messages.", "The files {names} are in our direct messages.", len(files)
            ).format(names=sent)
        messages = tuple(
            replace(m, parts=(*(p for p in m.parts if not isinstance(p, Attachment)), Text(where)))
            if any(isinstance(p, Attachment) for p in m.parts) else m
            for m in reply.messages
        )
        return replace(reply, messages=messages)

    async def admin_actor(self, origin: Origin) -> Actor:
        actor = origin.actor()
        if self.service.is_admin(actor):  # QUIZBOT_ADMINS: no need to ask Slack
            return actor
        return origin.actor(is_admin=await self.api.is_workspace_admin(origin.user))

    async def message(self, origin: Origin, event: dict[str, Any], accepted: asyncio.Event | None = None) -> None:
        """Code in the DM or a thread: the core decides what it answers from where it was sent.

        `accepted` is set once the message may be acknowledged: at once, unless it is code the core
        takes as an answer, then once its grading is recorded (told with "Running your code").
        """
        text = str(event.get("text") or "")
        files = [f for f in event.get("files") or [] if isinstance(f, dict)]
        kind = message_kind(origin, event)
        if accepted is not None and kind != CODE:
            accepted.set()
        if kind == PACK_UPLOAD:
            await self.load_packs(origin, files, force=bool(_FORCE.search(text)))
            return
        if kind == DM_NOTE:
            extra = " " + _("A pack file needs the words `pack load` in the same message.") if files else ""
            await self.courier.tell(origin, notice(_(DM_HINT) + extra))
            return
        if kind == CHAT:
            return  # code in a channel, outside any thread, or no code: just conversation
        in_dm = event.get("channel_type") == "im"

        async def progress(note: str) -> None:  # the grading is recorded: Slack may have its 200
            if accepted is not None:
                accepted.set()
            await self.courier.tell(origin, notice(note))

        where = Where(channel=origin.channel, thread=origin.thread_ts, dm=in_dm)
        key = f"{origin.user}:{event.get('ts', '')}"
        request = rq.Submit(await self.code_of(event), code_only=True, key=key, progress=progress, where=where)
        try:
            reply = await self.service.handle(origin.actor(), request)
        except NotAddressed:
            return  # code in some other thread is just conversation
        if reply.aside:
            await self.courier.tell(origin, reply)
            return
        place, item_ts = anchor_of(reply.anchor)
        if item_ts is None:  # posted by another process while this one graded: remembered by now, often
            session_id = next((m.session_id for m in (*reply.messages, reply.update) if m is not None and m.session_id), None)
            if session_id is not None:
                place, item_ts = anchor_of(await self.service.ask(q.QuizAnchor(origin.actor(), session_id)) or reply.anchor)
        await self.courier.deliver(origin, reply, place or Place(origin.channel or await self.api.open_dm(origin.user)), update_ts=item_ts)

    async def code_of(self, event: dict[str, Any]) -> str:
        """The code a message carries: its rich-text code block, its fenced text, or its first .py file."""
        text = str(event.get("text") or "")
        block = preformatted_code(event)
        if block is not None:
            return block
        if "```" in text:
            return valid_text(unescape(text))
        files = [f for f in event.get("files") or [] if isinstance(f, dict)]
        py_file = next(f for f in files if str(f.get("name", "")).lower().endswith(".py"))
        name, data = await self.api.download(py_file, limit=PY_FILE_LIMIT)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise QuizError(_("`{name}` is not UTF-8 text; send Python source.").format(name=name)) from exc


def _ephemeral(message: Message) -> dict[str, Any]:
    return {"text": bk.fallback_text(message), "blocks": bk.message_blocks(message), "response_type": "ephemeral"}
