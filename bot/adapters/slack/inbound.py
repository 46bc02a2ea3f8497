"""Every Slack request becomes one core request; the reply goes out through `deliver`.

Every listener acknowledges at once (Bolt's `ack`) and does its work in a lazy listener, so
Slack has its answer within 3 seconds even while the sandbox runs; a click on a quiz message and a
short answer typed in the answer form are acknowledged once the answer is stored
(`answer_then_ack`, `answer_form_then_ack`), so that no acknowledged answer is lost with a process
that dies (a code answer is acknowledged at once; its grading is recorded as unfinished work). No
quiz rule lives here: what to ask, grade or refuse is the core's; this module only decides where
things are shown.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

from slack_bolt.async_app import AsyncApp

from bot.core import actions as ax
from bot.core import commands as cm
from bot.core import requests as rq
from bot.core.errors import QuizError
from bot.core.importing import UPLOAD_SUFFIXES
from bot.core.model import Actor, Session
from bot.core.race import ChannelPost
from bot.core.replies import Attachment, Message, Reply, Text, Tone, notice
from bot.core.service import QuizService, error_reply
from bot.metrics import delivered, finished

from . import render as bk
from .api import Place, SlackApi, SlackCallFailed
from .commands import parse
from .deliver import Courier, anchor_of
from .limits import PACK_FILE_LIMIT, PY_FILE_LIMIT
from .markup import unescape
from .origin import Origin, from_action, from_command, from_event, from_view, preformatted_code

log = logging.getLogger("quizbot.slack")

ACK_WITHIN_S = 2.0  # a quiz click is acknowledged once stored, or after this long at most (Slack allows 3 s)
PACK_SUFFIXES = UPLOAD_SUFFIXES  # packs, and other tools' quiz files to convert
_PACK_LOAD = re.compile(r"\bpack\s+load\b", re.I)
_FORCE = re.compile(r"(?:^|\s)(?:--)?force\b", re.I)

DM_HINT = (
    "I read a ```python block or a .py file as your answer to a code question. For everything else use "
    "`/quiz` (try `/quiz help`), or the buttons under a question."
)


# Where the reply to each typed request is shown: the quiz's own place, or only to the person.
QUIZ, CURRENT, TELL, KEEP = "quiz", "current", "tell", "keep"
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
}
# The social side: a race's start and stop and the leaderboard are shown to the channel; privacy is private.
PUBLIC = "public"
ROUTES.update({rq.RaceStart: PUBLIC, rq.RaceStop: PUBLIC, rq.Leaderboard: PUBLIC, rq.Privacy: TELL})
ADMIN_REQUESTS = (rq.PackEnable, rq.PackRemove, rq.PackLoad, rq.DailySet, rq.DailyOff, rq.DailyNow)


class Inbound:
    """The Slack listeners: commands, clicks, forms, messages and the Home tab."""

    def __init__(self, *, service: QuizService, api: SlackApi) -> None:
        self.service = service
        self.api = api
        self.courier = Courier(api=api, service=service)
        self._inflight: set[asyncio.Task[Any]] = set()
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}

    def register(self, bolt: AsyncApp) -> None:
        """Attach every listener to a Bolt app: an ack function, then the work as a lazy listener."""
        bolt.command("/quiz")(ack=self.ack_command, lazy=[self.run_command])
        bolt.action(re.compile(r"^qz:"))(self.answer_then_ack)  # no lazy listener: it acks once the answer is stored
        bolt.action(re.compile(r"^qzh:start"))(ack=self.ack_only, lazy=[self.on_home_start])
        bolt.action(re.compile(r"^dy:"))(ack=self.ack_only, lazy=[self.on_daily_action])
        bolt.view_submission(re.compile(r"^qz:"))(self.answer_form_then_ack)  # a short answer: acked once stored
        bolt.action(re.compile(r"^rc:"))(ack=self.ack_only, lazy=[self.on_race_action])
        bolt.view_submission(re.compile(r"^rc:"))(ack=self.ack_answer, lazy=[self.on_race_answer])
        bolt.view_submission(bk.RUN_CALLBACK)(ack=self.ack_run, lazy=[self.on_run])
        bolt.view_submission(bk.PACK_CALLBACK)(ack=self.ack_pack_load, lazy=[self.on_pack_load])
        bolt.event({"type": "message", "subtype": (None, "file_share", "thread_broadcast")})(ack=self.ack_only, lazy=[self.on_message])
        bolt.event("message")(self.ack_only)  # edits, joins, bot messages: nothing to do
        bolt.event("file_shared")(self.ack_only)  # the message event that comes with the file carries it
        bolt.event("app_home_opened")(ack=self.ack_only, lazy=[self.on_home_opened])

    async def idle(self) -> None:
        """Wait until no lazy listener is running (tests, and a clean shutdown)."""
        while True:
            for _ in range(5):
                await asyncio.sleep(0)
            pending = {t for t in self._inflight if not t.done() and t is not asyncio.current_task()}
            if not pending:
                return
            await asyncio.wait(pending)

    # ----------------------------------------------------------------- acknowledgements

    async def ack_only(self, ack: Callable[..., Awaitable[Any]]) -> None:
        await ack()

    async def answer_then_ack(self, ack: Callable[..., Awaitable[Any]], body: dict[str, Any]) -> None:
        """A click on a quiz message: acknowledge it once the core has stored what it changed, then show the reply.

        A click Slack got no acknowledgement for shows the learner Slack's "did not respond" mark, so
        acknowledging only after the answer is stored means a bot process killed at any moment loses
        no acknowledged answer: either it was stored, or the learner sees the click failed and makes
        it again, on any process behind the load balancer (recorded once: the attempt's key). Should
        the core take longer than ACK_WITHIN_S, the click is acknowledged anyway, in Slack's 3 seconds.
        """
        await self._ack_when_stored(ack, lambda stored: self.on_action(body, stored=stored))

    async def answer_form_then_ack(self, ack: Callable[..., Awaitable[Any]], body: dict[str, Any], view: dict[str, Any]) -> None:
        """The answer form: a short answer is acknowledged once stored, like a click; code at once.

        A code answer is graded for longer than Slack waits, so it is acknowledged at once (the modal
        closes) and "Running your code" follows; the grading it starts is recorded as unfinished work,
        so a bot stopped or killed mid-grade tells the learner to send it again.
        """
        if not _input_value(view, bk.ANSWER_BLOCK, bk.ANSWER_INPUT).strip():
            await ack(response_action="errors", errors={bk.ANSWER_BLOCK: "Type your answer first."})
            return
        slow = ax.is_slow(str(view.get("callback_id", "")))
        await self._ack_when_stored(ack, lambda stored: self.on_answer(body, view, stored=stored), at_once=slow)

    async def _ack_when_stored(
        self,
        ack: Callable[..., Awaitable[Any]],
        run: Callable[[asyncio.Event], Coroutine[Any, Any, None]],
        *,
        at_once: bool = False,
    ) -> None:
        """Start `run` (which sets the event once the core answered); ack then, or after ACK_WITHIN_S."""
        stored = asyncio.Event()
        work = asyncio.create_task(run(stored), name="quizbot-slack-answer")
        self._inflight.add(work)
        work.add_done_callback(self._inflight.discard)
        if at_once:
            await ack()
            return
        waiting = asyncio.create_task(stored.wait())
        try:
            await asyncio.wait({work, waiting}, timeout=ACK_WITHIN_S, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiting.cancel()
            await ack()

    async def ack_command(self, ack: Callable[..., Awaitable[Any]], body: dict[str, Any]) -> None:
        command = parse(str(body.get("text", "")))
        if isinstance(command, cm.Usage):
            help_message = self.service.help().messages[0]
            usage = Message(
                kind="help",
                title=help_message.title,
                parts=(Text(f"⚠️ {command.problem} Usage:"), *help_message.parts),
            )
            await ack(**_ephemeral(usage))
        elif isinstance(command, rq.Help):
            await ack(**_ephemeral(self.service.help().messages[0]))
        elif isinstance(command, rq.RunCode) and command.text.strip():
            await ack(text=rq.RUNNING, response_type="ephemeral")
        else:
            await ack()

    async def ack_answer(self, ack: Callable[..., Awaitable[Any]], view: dict[str, Any]) -> None:
        if not _input_value(view, bk.ANSWER_BLOCK, bk.ANSWER_INPUT).strip():
            await ack(response_action="errors", errors={bk.ANSWER_BLOCK: "Type your answer first."})
        else:
            await ack()

    async def ack_run(self, ack: Callable[..., Awaitable[Any]], view: dict[str, Any]) -> None:
        if not _input_value(view, bk.CODE_BLOCK, bk.CODE_INPUT).strip():
            await ack(response_action="errors", errors={bk.CODE_BLOCK: "Type some Python first."})
        else:
            await ack()

    async def ack_pack_load(self, ack: Callable[..., Awaitable[Any]], view: dict[str, Any]) -> None:
        if not _view_files(view):
            await ack(response_action="errors", errors={bk.PACK_BLOCK: "Choose a pack (.yaml, .zip) or a quiz file to convert."})
        else:
            await ack()

    # ----------------------------------------------------------------- lazy listeners

    async def run_command(self, body: dict[str, Any]) -> None:
        """`/quiz <subcommand> ...`, after the acknowledgement."""
        origin = from_command(body)
        command = parse(str(body.get("text", "")))
        if isinstance(command, cm.Usage | rq.Help):
            return  # answered in the acknowledgement
        async with self._job(origin):
            if isinstance(command, cm.PackLoadAsked):
                actor = await self._admin_actor(origin)
                self.service.admins.require(actor, "load packs")
                await self.courier.open(origin, bk.pack_load_view(bk.metadata(r=origin.response_url, c=origin.channel)))
                return
            await self._command(origin, command)

    async def _command(self, origin: Origin, request: rq.Request) -> None:
        if isinstance(request, rq.RunCode):
            if not request.text.strip():
                await self.courier.open(origin, bk.run_view(bk.metadata(r=origin.response_url, c=origin.channel)))
                return
            request = rq.RunCode(unescape(request.text))
        if isinstance(request, rq.Stats):  # named as Slack shows the person: the picture cannot render a mention
            request = rq.Stats(request.user_id, await self.api.user_name(request.user_id or origin.user))
        if isinstance(request, rq.MyDataExport | rq.MyDataDelete):
            await self._my_data(origin, request)
            return
        actor = await self._admin_actor(origin) if isinstance(request, ADMIN_REQUESTS) else origin.actor()
        route = ROUTES.get(type(request), TELL)
        if route == CURRENT:
            session = await self.service.active_session(actor)
            reply = await self.service.handle(actor, request)
            place, item_ts = await self._anchor_now(session, anchor_of(session))
            await self.courier.deliver(origin, reply, place, update_ts=item_ts)
        elif route == PUBLIC:
            if isinstance(request, rq.RaceStart) and origin.in_dm:
                raise QuizError("Races run in a channel: start one in a workspace channel the bot is in.")
            await self.courier.announce(origin, await self.service.handle(actor, request))
        elif route == QUIZ:
            reply = await self.service.handle(actor, request)
            if not any(m.kind == "item" for m in reply.messages):
                await self.courier.tell(origin, reply)
                return
            place, note = await self.courier.quiz_home(origin, private=isinstance(request, rq.DailyReview))
            await self.courier.deliver(origin, reply, place)
            if note:
                await self.courier.tell(origin, notice(note))
        else:
            await self.courier.tell(origin, await self.service.handle(actor, request), persistent=route == KEEP)

    async def on_action(self, body: dict[str, Any], *, stored: asyncio.Event | None = None) -> None:
        """A click or menu choice on a quiz message: hand the action id to the core unchanged.

        `stored` is set once the core has answered (what it changed is in the database), before the
        reply is shown.
        """
        origin = from_action(body)
        async with self._job(origin):
            action = (body.get("actions") or [{}])[0]
            action_id = str(action.get("action_id", ""))
            key = f"{origin.user}:{action.get('action_ts', '')}:{action_id}"[:200]
            parsed = ax.parse(action_id)
            actor = origin.actor()
            if parsed is not None and parsed.session_id == ax.NO_SESSION:
                actor = await self._admin_actor(origin)  # an admin's confirmation
            if parsed is not None and await self.service.is_daily_post(parsed.session_id):
                await self._daily_post(origin, actor, rq.Act(action_id, tuple(_action_values(action)), key), stored=stored)
                return
            reply = await self.service.handle(actor, rq.Act(action_id, tuple(_action_values(action)), key))
            if stored is not None:
                stored.set()
            if parsed is not None and parsed.verb in (ax.RESTART, ax.CURRENT) and any(m.kind == "item" for m in reply.messages):
                place, note = await self.courier.quiz_home(origin) if parsed.verb == ax.RESTART else (anchor_of(
                    await self.service.active_session(actor))[0], None)
                await self.courier.deliver(origin, reply, place)
                if note:
                    await self.courier.tell(origin, notice(note))
                return
            if parsed is not None and parsed.session_id == ax.NO_SESSION:
                await self.courier.tell(origin, reply)
                return
            place = Place(origin.channel, origin.thread_ts) if origin.channel else None
            await self.courier.deliver(origin, reply, place, update_ts=origin.message_ts)

    async def on_race_action(self, body: dict[str, Any]) -> None:
        """A click or menu choice on a race round in a channel: the answer's note is private."""
        origin = from_action(body)
        async with self._job(origin):
            action = (body.get("actions") or [{}])[0]
            action_id = str(action.get("action_id", ""))
            key = f"{origin.user}:{action.get('action_ts', '')}:{action_id}"[:200]
            reply = await self.service.handle(origin.actor(), rq.Act(action_id, tuple(_action_values(action)), key))
            if reply.form is not None:
                await self.courier.deliver(origin, reply, Place(origin.channel) if origin.channel else None)
            elif reply.private:
                await self.courier.tell(origin, reply)
            else:
                await self.courier.announce(origin, reply)  # Stop race: the final table, for everyone

    async def on_race_answer(self, body: dict[str, Any], view: dict[str, Any]) -> None:
        """A race's short-answer form was submitted: its callback_id is the race action id."""
        value = _input_value(view, bk.ANSWER_BLOCK, bk.ANSWER_INPUT)
        if not value.strip():
            return  # refused in the acknowledgement
        origin = from_view(body, bk.read_metadata(view.get("private_metadata")))
        async with self._job(origin):
            action = str(view.get("callback_id", ""))
            reply = await self.service.handle(origin.actor(), rq.Act(action, (value,), key=str(view.get("id") or "") or None))
            await self.courier.tell(origin, reply)

    async def publish_race(self, post: ChannelPost) -> None:
        """The race service's port: close the round's message, post the reveal and what comes next."""
        await self.courier.race_post(post)

    async def _daily_post(self, origin: Origin, actor: Actor, request: rq.Act, *, stored: asyncio.Event | None = None) -> None:
        """A member's click or form on the channel's daily post: every answer only to them."""
        reply = await self.service.handle(actor, request)
        if stored is not None:
            stored.set()
        if reply.form is not None:
            await self.courier.open(origin, bk.form_view(reply.form, bk.metadata(c=origin.channel, t=origin.thread_ts)))
            return
        await self.courier.tell(origin, reply)

    async def on_daily_action(self, body: dict[str, Any]) -> None:
        """A daily-practice button: the reminder's Start (today's review), a leech's Reset."""
        origin = from_action(body)
        async with self._job(origin):
            action = (body.get("actions") or [{}])[0]
            reply = await self.service.handle(origin.actor(), rq.Act(str(action.get("action_id", ""))))
            if not any(m.kind == "item" for m in reply.messages):
                await self.courier.tell(origin, reply)
                return
            place, note = await self.courier.quiz_home(origin)
            await self.courier.deliver(origin, reply, place)
            if note:
                await self.courier.tell(origin, notice(note))

    async def on_home_start(self, body: dict[str, Any]) -> None:
        """A Start button on the Home tab: a quiz in the learner's direct messages."""
        origin = from_action(body)
        async with self._job(origin):
            action = (body.get("actions") or [{}])[0]
            request = rq.Start(pack=str(action.get("value") or "") or None, replace=True)
            reply = await self.service.handle(origin.actor(), request)
            await self.courier.deliver(origin, reply, Place(await self.api.open_dm(origin.user)))

    async def on_answer(self, body: dict[str, Any], view: dict[str, Any], *, stored: asyncio.Event | None = None) -> None:
        """The answer modal was submitted: its callback_id is the core's action id.

        `stored` is set once the core has answered (the answer is in the database).
        """
        value = _input_value(view, bk.ANSWER_BLOCK, bk.ANSWER_INPUT)
        if not value.strip():
            return  # refused in the acknowledgement
        origin = from_view(body, bk.read_metadata(view.get("private_metadata")))
        async with self._job(origin):
            action = str(view.get("callback_id", ""))
            if ax.is_slow(action):
                await self.courier.tell(origin, notice(rq.RUNNING))
            parsed = ax.parse(action)
            if parsed is not None and await self.service.is_daily_post(parsed.session_id):
                request = rq.Act(action, (value,), key=str(view.get("id") or "") or None)
                await self._daily_post(origin, origin.actor(), request, stored=stored)
                return
            reply = await self.service.handle(origin.actor(), rq.Act(action, (value,), key=str(view.get("id") or "") or None))
            if stored is not None:
                stored.set()
            place = Place(origin.channel, origin.thread_ts) if origin.channel else None
            await self.courier.deliver(origin, reply, place, update_ts=origin.message_ts)

    async def on_run(self, body: dict[str, Any], view: dict[str, Any]) -> None:
        code = _input_value(view, bk.CODE_BLOCK, bk.CODE_INPUT)
        if not code.strip():
            return
        origin = from_view(body, bk.read_metadata(view.get("private_metadata")))
        async with self._job(origin):
            await self.courier.tell(origin, await self.service.handle(origin.actor(), rq.RunCode(code)), persistent=True)

    async def on_pack_load(self, body: dict[str, Any], view: dict[str, Any]) -> None:
        files = _view_files(view)
        if not files:
            return
        origin = from_view(body, bk.read_metadata(view.get("private_metadata")))
        force = bool(_selected(view, bk.FORCE_BLOCK, bk.FORCE_INPUT))
        async with self._job(origin):
            await self._load_packs(origin, files, force=force)

    async def on_message(self, body: dict[str, Any]) -> None:
        """A message in the bot's DM or in a quiz thread: code answers and pack uploads."""
        event = body.get("event") or {}
        if event.get("bot_id") or not isinstance(event.get("user"), str):
            return
        origin = from_event(body)
        async with self._job(origin):
            await self._message(origin, event)

    async def on_home_opened(self, body: dict[str, Any]) -> None:
        event = body.get("event") or {}
        if event.get("tab") != "home":
            return
        origin = from_event(body)
        async with self._job(origin):
            actor = origin.actor()
            stats = await self.service.handle(actor, rq.Stats(picture=False))
            packs = await self.service.enabled_packs(actor.scope)
            rank = await self.service.leaderboard_rank(actor)
            shown = stats.messages[0] if stats.messages else None
            await self.api.publish_home(origin.user, bk.home_view(shown, packs, rank=rank))
            delivered()

    # ----------------------------------------------------------------- flows

    async def _message(self, origin: Origin, event: dict[str, Any]) -> None:
        text = str(event.get("text") or "")
        files = [f for f in event.get("files") or [] if isinstance(f, dict)]
        in_dm = event.get("channel_type") == "im"
        if in_dm and files and _PACK_LOAD.search(text):
            await self._load_packs(origin, files, force=bool(_FORCE.search(text)))
            return
        py_files = [f for f in files if str(f.get("name", "")).lower().endswith(".py")]
        fenced = "```" in text
        if not fenced and not py_files:
            if in_dm:
                extra = " A pack file needs the words `pack load` in the same message." if files else ""
                await self.courier.tell(origin, notice(DM_HINT + extra))
            return
        actor = origin.actor()
        if not in_dm and origin.channel and origin.thread_ts:
            post_id = await self.service.daily_post_at(actor.platform, origin.thread_ts, channel_id=origin.channel)
            if post_id is not None:
                await self._daily_thread(origin, actor, event, post_id)
                return
        session = await self.service.active_session(actor)
        place, item_ts = anchor_of(session)
        if not in_dm and (place is None or place.channel != origin.channel or not origin.thread_ts or place.thread_ts != origin.thread_ts):
            return  # code in some other thread is just conversation
        if session is None and in_dm:
            session = await self.service.gate.for_code(actor)  # a quiz started in another place
            place, item_ts = anchor_of(session)
        code = await self._code_of(event)
        if session is not None:
            await self.courier.tell(origin, notice(rq.RUNNING))
        key = f"{origin.user}:{event.get('ts', '')}"
        request = rq.Submit(code, code_only=True, session_id=session.id if session else None, key=key)
        reply = await self.service.handle(actor, request)
        place, item_ts = await self._anchor_now(session, (place, item_ts))
        await self.courier.deliver(origin, reply, place or Place(origin.channel or await self.api.open_dm(origin.user)), update_ts=item_ts)

    async def _anchor_now(self, session: Session | None, known: tuple[Place | None, str | None]) -> tuple[Place | None, str | None]:
        """Where the quiz's item message is, read again once the core answered.

        The process that posted the item remembers its message only after posting it, so a learner's
        answer can reach this process first; by the time it is answered the anchor is often stored.
        """
        if session is None:
            return known
        place, item_ts = anchor_of(await self.service.session(session.id))
        return place or known[0], item_ts or known[1]

    async def _code_of(self, event: dict[str, Any]) -> str:
        """The code a message carries: its rich-text code block, its fenced text, or its first .py file."""
        text = str(event.get("text") or "")
        block = preformatted_code(event)
        if block is not None:
            return block
        if "```" in text:
            return unescape(text)
        files = [f for f in event.get("files") or [] if isinstance(f, dict)]
        py_file = next(f for f in files if str(f.get("name", "")).lower().endswith(".py"))
        name, data = await self.api.download(py_file, limit=PY_FILE_LIMIT)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise QuizError(f"`{name}` is not UTF-8 text; send Python source.") from exc

    async def _daily_thread(self, origin: Origin, actor: Actor, event: dict[str, Any], post_id: str) -> None:
        """Code in the thread of a channel's daily post: the member's answer; every reply only to them."""
        async def progress(text: str) -> None:
            await self.courier.tell(origin, notice(text))

        key = f"{origin.user}:{event.get('ts', '')}"
        request = rq.Submit(await self._code_of(event), code_only=True, session_id=post_id, key=key, progress=progress)
        await self.courier.tell(origin, await self.service.handle(actor, request))

    async def _load_packs(self, origin: Origin, files: list[dict[str, Any]], *, force: bool) -> None:
        actor = await self._admin_actor(origin)
        self.service.admins.require(actor, "load packs")
        packs = [f for f in files if str(f.get("name", "")).lower().endswith(PACK_SUFFIXES)]
        if not packs:
            raise QuizError("Attach the pack as a .yaml, .yml or .zip file, or a quiz file to convert (" + ", ".join(PACK_SUFFIXES[3:]) + ").")
        for file in packs:
            name = str(file.get("name", "the file"))
            try:
                name, data = await self.api.download(file, limit=PACK_FILE_LIMIT)
                reply = await self.service.handle(actor, rq.PackLoad(name, data, force))
            except QuizError as exc:
                reply = error_reply(exc)
            except SlackCallFailed as exc:
                reply = notice(f"I could not fetch `{name}` from Slack: {exc.error}.", tone=Tone.ERROR)
            await self.courier.tell(origin, reply, persistent=True)

    async def _my_data(self, origin: Origin, request: rq.MyDataExport | rq.MyDataDelete) -> None:
        """`/quiz my-data`: the export goes to the person's DM as a file; deleting asks first, privately."""
        if request.user_id:
            request = replace(request, name=f"<@{request.user_id}>")
            actor = await self._admin_actor(origin)
        else:
            actor = origin.actor()
        reply = await self.service.handle(actor, request)
        files = [part for m in reply.messages for part in m.parts if isinstance(part, Attachment)]
        if files:
            channel = await self.api.open_dm(origin.user)
            for part in files:
                await self.api.upload(channel, part.filename, part.data)
            sent = ", ".join(f"`{part.filename}`" for part in files)
            reply = notice(f"{reply.messages[0].text()}\nThe file {sent} is in our direct messages.")
        await self.courier.tell(origin, reply)

    async def _admin_actor(self, origin: Origin) -> Actor:
        actor = origin.actor()
        if self.service.is_admin(actor):  # QUIZBOT_ADMINS: no need to ask Slack
            return actor
        return origin.actor(is_admin=await self.api.is_workspace_admin(origin.user))

    @asynccontextmanager
    async def _job(self, origin: Origin) -> AsyncIterator[None]:
        """Run one person's work: in order with their other work, with every failure told to them."""
        task = asyncio.current_task()
        if task is not None:
            self._inflight.add(task)
            task.add_done_callback(self._inflight.discard)
        try:
            async with self._lock(origin):
                yield
        except QuizError as exc:
            await self._safe_tell(origin, error_reply(exc))
        except SlackCallFailed as exc:
            if exc.method == "download":
                text = f"I could not fetch the file from Slack: {exc.error}."
            else:
                text = f"Slack refused my reply ({exc.error}); please try again."
            await self._safe_tell(origin, notice(text, tone=Tone.ERROR))
        except Exception:
            log.exception("the Slack front end failed on a request from %s", origin.user)
            await self._safe_tell(origin, notice("Something went wrong on my side; it was logged. Please try again.", tone=Tone.ERROR))
        finished()  # the request's last reply is out, if it had one (bot.metrics: from its receipt)

    async def _safe_tell(self, origin: Origin, reply: Reply) -> None:
        try:
            await self.courier.tell(origin, reply)
        except Exception:
            log.exception("could not tell %s about an error", origin.user)

    def _lock(self, origin: Origin) -> asyncio.Lock:
        key = (origin.team, origin.user)
        lock = self._locks.get(key)
        if lock is None:
            if len(self._locks) > 10_000:
                self._locks = {k: v for k, v in self._locks.items() if v.locked()}
            lock = self._locks[key] = asyncio.Lock()
        return lock


def _ephemeral(message: Message) -> dict[str, Any]:
    return {"text": bk.fallback_text(message), "blocks": bk.message_blocks(message), "response_type": "ephemeral"}


def _action_values(action: dict[str, Any]) -> list[str]:
    """The chosen values of a menu; a button has none (its action id says everything)."""
    if isinstance(action.get("selected_option"), dict):
        return [str(action["selected_option"].get("value", ""))]
    if isinstance(action.get("selected_options"), list):
        return [str(o.get("value", "")) for o in action["selected_options"]]
    return []


def _state(view: dict[str, Any], block: str, element: str) -> dict[str, Any]:
    values = ((view.get("state") or {}).get("values") or {}).get(block) or {}
    found = values.get(element)
    return found if isinstance(found, dict) else {}


def _input_value(view: dict[str, Any], block: str, element: str) -> str:
    return str(_state(view, block, element).get("value") or "")


def _selected(view: dict[str, Any], block: str, element: str) -> list[str]:
    return [str(o.get("value")) for o in _state(view, block, element).get("selected_options") or []]


def _view_files(view: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in _state(view, bk.PACK_BLOCK, bk.PACK_INPUT).get("files") or [] if isinstance(f, dict)]
