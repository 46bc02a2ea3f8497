"""Every Slack request becomes one core request; the reply goes out through `deliver`.

Every listener acknowledges at once (Bolt's `ack`) and then starts its work in a task of its own
(`Jobs.acked_then`), so Slack has its answer within 3 seconds even while the sandbox runs. An answer
is acknowledged only once it is safe, so that no acknowledged answer is lost with a process that
dies: a click on a quiz message and a short answer typed in the answer form once the answer is
stored (`answer_then_ack`, `answer_form_then_ack`); code, in the form or sent as a message
(`message_then_ack`), once its grading is recorded as unfinished work, before "Running your code"
shows. No quiz rule lives here: what to ask, grade or refuse is the core's; this module only
decides where things are shown.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from slack_bolt.async_app import AsyncApp

from bot.core import actions as ax
from bot.core import commands as cm
from bot.core import requests as rq
from bot.core.errors import QuizError
from bot.core.i18n import N_
from bot.core.race import ChannelPost
from bot.core.replies import Reply, notice
from bot.core.service import QuizService
from bot.metrics import delivered

from . import render as bk
from .api import Place, SlackApi
from .commands import CHAT, CODE, Commands, message_kind, pack_form_problem, parse, telling
from .deliver import ACK_LANGUAGE_S, Courier, Jobs, anchor_of
from .origin import (
    Origin,
    action_values,
    from_action,
    from_command,
    from_event,
    from_view,
    input_value,
    selected,
    view_files,
)

log = logging.getLogger("quizbot.slack")

ACK_WITHIN_S = 2.0  # a quiz click is acknowledged once stored, or after this long at most (Slack allows 3 s)
QUIZ_ACTIONS = re.compile(rf"^(?:{ax.PREFIX}|{ax.POST_PREFIX}|{ax.PACK_PREFIX}|{ax.DATA_PREFIX}):")  # a quiz's own controls
CODE_ACK_WAIT_S = 30.0  # a code message's 200 waits for its grading row this long at most (Slack resends after 3 s)


class Inbound:
    """The Slack listeners: commands, clicks, forms, messages and the Home tab."""

    def __init__(self, *, service: QuizService, api: SlackApi) -> None:
        self.service = service
        self.api = api
        self.courier = Courier(api=api, service=service)
        self.commands = Commands(service=service, api=api, courier=self.courier)
        self.jobs = Jobs(self.courier)

    def register(self, bolt: AsyncApp) -> None:
        """Attach every listener to a Bolt app: an acknowledgement, then the work in a task of its own."""
        then = self.jobs.acked_then
        self._command = then(self.commands.acknowledge, self.run_command)
        bolt.command("/quiz")(self.command_then_ack)
        bolt.action(QUIZ_ACTIONS)(self.answer_then_ack)  # no separate work: it acks once the answer is stored
        bolt.action(re.compile(r"^qzh:start"))(then(self.ack_only, self.on_home_start))
        bolt.action(re.compile(r"^dy:"))(then(self.ack_only, self.on_daily_action))
        bolt.view_submission(QUIZ_ACTIONS)(self.answer_form_then_ack)  # a short answer: acked once stored
        bolt.action(re.compile(r"^rc:"))(then(self.ack_only, self.on_race_action))
        bolt.view_submission(re.compile(r"^rc:"))(then(self.ack_answer, self.on_race_answer, with_view=True))
        bolt.view_submission(bk.RUN_CALLBACK)(self.ack_run)
        bolt.view_submission(bk.PACK_CALLBACK)(then(self.ack_pack_load, self.on_pack_load, with_view=True))
        messages: dict[str, Any] = {"type": "message", "subtype": (None, "file_share", "thread_broadcast")}
        bolt.event(messages, middleware=[self.message_then_ack])(self.ack_only)  # the work starts in the middleware
        bolt.event("message")(self.ack_only)  # edits, joins, bot messages: nothing to do
        bolt.event("file_shared")(self.ack_only)  # the message event that comes with the file carries it
        bolt.event("app_home_opened")(then(self.ack_only, self.on_home_opened))

    async def idle(self) -> None:
        """Wait until no work started after an acknowledgement is running (tests, and a clean shutdown)."""
        await self.jobs.idle()

    # ----------------------------------------------------------------- acknowledgements

    async def ack_only(self, ack: Callable[..., Awaitable[Any]], *_: Any) -> None:
        await ack()

    async def command_then_ack(self, ack: Callable[..., Awaitable[Any]], body: dict[str, Any]) -> None:
        """`/quiz`, acknowledged at once; `/quiz run <code>` with "Running your code" once its run is recorded, as code answers
        (a process killed after that leaves a row that tells the learner), or after 1 s; refused code without it."""
        command, told = parse(str(body.get("text", ""))), list[str]()
        if not (isinstance(command, rq.RunCode) and command.text.strip()):
            return await self._command(ack, body, None)

        async def run(stored: asyncio.Event) -> None:
            await self.run_command(body, progress=telling(stored, told))

        if not await self._when_stored(run, ACK_WITHIN_S - ACK_LANGUAGE_S) or told:  # the note may wait for the language
            await ack(text=told[0], response_type="ephemeral") if told else await self.commands.acknowledge(ack, body)
        else:
            await ack()  # answered already (a refusal, through the response URL)

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
        """The answer form: a short answer is acknowledged once stored, like a click; code once its grading is recorded.

        Code is graded for longer than Slack waits: the modal closes once the grading is recorded as
        unfinished work (so a bot stopped or killed mid-grade tells the learner to send it again),
        and "Running your code" follows.
        """
        if not input_value(view, bk.ANSWER_BLOCK, bk.ANSWER_INPUT).strip():
            await self.courier.refused(ack, body, bk.ANSWER_BLOCK, N_("Type your answer first."), ok=False)
            return
        await self._ack_when_stored(ack, lambda stored: self.on_answer(body, view, stored=stored))

    async def message_then_ack(self, body: dict[str, Any], next: Callable[[], Awaitable[None]]) -> None:
        """A message event: handled here, and passed on to the listener (which acknowledges) once safe.

        Code for a quiz or a daily post is acknowledged only once its grading is recorded as
        unfinished work; anything else at once. Slack sends again an event it got no 200 for
        within 3 seconds, so a process killed at any moment loses no code message without a word:
        either its row tells the learner after the restart, or Slack sends the message again
        (graded once: the attempt's key).
        """
        await self._when_stored(lambda accepted: self.on_message(body, accepted=accepted), CODE_ACK_WAIT_S)
        await next()

    async def _ack_when_stored(self, ack: Callable[..., Awaitable[Any]], run: Callable[[asyncio.Event], Coroutine[Any, Any, None]]) -> None:
        """Start `run` (which sets the event once what it changed is safe); ack then, or after ACK_WITHIN_S."""
        try:
            await self._when_stored(run, ACK_WITHIN_S)
        finally:
            await ack()

    async def _when_stored(self, run: Callable[[asyncio.Event], Coroutine[Any, Any, None]], within: float) -> bool:
        """Start `run` as a job; return once it set its event or ended, or after `within` seconds: whether it ended."""
        stored = asyncio.Event()
        work = asyncio.create_task(run(stored), name="quizbot-slack-answer")
        self.jobs.track(work)
        waiting = asyncio.create_task(stored.wait())
        try:
            await asyncio.wait({work, waiting}, timeout=within, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiting.cancel()
        return work.done()

    async def ack_answer(self, ack: Callable[..., Awaitable[Any]], body: dict[str, Any], view: dict[str, Any]) -> None:
        await self.courier.refused(ack, body, bk.ANSWER_BLOCK, N_("Type your answer first."), ok=bool(input_value(view, bk.ANSWER_BLOCK, bk.ANSWER_INPUT).strip()))

    async def ack_run(self, ack: Callable[..., Awaitable[Any]], body: dict[str, Any], view: dict[str, Any]) -> None:
        if input_value(view, bk.CODE_BLOCK, bk.CODE_INPUT).strip():  # closed once the run is recorded, as `/quiz run`
            return await self._ack_when_stored(ack, lambda stored: self.on_run(body, view, stored))
        await self.courier.refused(ack, body, bk.CODE_BLOCK, N_("Type some Python first."), ok=False)

    async def ack_pack_load(self, ack: Callable[..., Awaitable[Any]], body: dict[str, Any], view: dict[str, Any]) -> None:
        problem, values = pack_form_problem(view_files(view, bk.PACK_BLOCK, bk.PACK_INPUT))  # said in the form
        await self.courier.refused(ack, body, bk.PACK_BLOCK, problem, ok=not problem, **values)

    # ----------------------------------------------------------------- the work after an acknowledgement

    async def run_command(self, body: dict[str, Any], progress: Callable[[str], Awaitable[None]] | None = None) -> None:
        """`/quiz <subcommand> ...`, after the acknowledgement (`progress`: see `command_then_ack`)."""
        origin = from_command(body)
        command = parse(str(body.get("text", "")))
        if isinstance(command, cm.Usage | rq.Help):
            return  # answered in the acknowledgement
        async with self.jobs.run(origin):
            if isinstance(command, cm.PackLoadAsked):
                self.service.may_load_packs(await self.commands.admin_actor(origin))
                await self.courier.open(origin, bk.pack_load_view(bk.metadata(r=origin.response_url, c=origin.channel)))
                return
            await self.commands.run(origin, command, progress=progress)

    async def on_action(self, body: dict[str, Any], *, stored: asyncio.Event | None = None) -> None:
        """A click or menu choice on a quiz message: hand the action id to the core unchanged.

        `stored` is set once the core has answered (what it changed is in the database), before the
        reply is shown.
        """
        origin = from_action(body)
        async with self.jobs.run(origin):
            action = (body.get("actions") or [{}])[0]
            action_id = str(action.get("action_id", ""))
            key = f"{origin.user}:{action.get('action_ts', '')}:{action_id}"[:200]
            parsed = ax.parse(action_id, prefix=None)
            actor = origin.actor()
            if parsed is not None and parsed.session_id == ax.NO_SESSION:
                actor = await self.commands.admin_actor(origin)  # an admin's confirmation
            reply = await self.service.handle(actor, rq.Act(action_id, tuple(action_values(action)), key))
            if stored is not None:
                stored.set()
            if reply.aside:
                await self._aside(origin, reply)
            elif parsed is not None and parsed.verb in (ax.RESTART, ax.CURRENT) and any(m.kind == "item" for m in reply.messages):
                await self.commands.in_quiz_home(origin, reply, None if parsed.verb == ax.RESTART else anchor_of(reply.anchor)[0])
            elif parsed is not None and parsed.session_id == ax.NO_SESSION:
                await self.courier.outcome(origin, reply)  # a confirmation: edited into what was done
            else:
                place = Place(origin.channel, origin.thread_ts) if origin.channel else None
                await self.courier.deliver(origin, reply, place, update_ts=origin.message_ts)

    async def on_race_action(self, body: dict[str, Any]) -> None:
        """A click or menu choice on a race round in a channel: the answer's note is private."""
        origin = from_action(body)
        async with self.jobs.run(origin):
            action = (body.get("actions") or [{}])[0]
            action_id = str(action.get("action_id", ""))
            key = f"{origin.user}:{action.get('action_ts', '')}:{action_id}"[:200]
            reply = await self.service.handle(origin.actor(), rq.Act(action_id, tuple(action_values(action)), key))
            if reply.form is not None:
                await self.courier.deliver(origin, reply, Place(origin.channel) if origin.channel else None)
            elif reply.private:
                await self.courier.tell(origin, reply)
            else:
                await self.courier.announce(origin, reply)  # Stop race: the final table, for everyone

    async def on_race_answer(self, body: dict[str, Any], view: dict[str, Any]) -> None:
        """A race's short-answer form was submitted: its callback_id is the race action id."""
        value = input_value(view, bk.ANSWER_BLOCK, bk.ANSWER_INPUT)
        if not value.strip():
            return  # refused in the acknowledgement
        origin = from_view(body, bk.read_metadata(view.get("private_metadata")))
        async with self.jobs.run(origin):
            action = str(view.get("callback_id", ""))
            reply = await self.service.handle(origin.actor(), rq.Act(action, (value,), key=str(view.get("id") or "") or None))
            await self.courier.tell(origin, reply)

    async def publish_race(self, post: ChannelPost) -> None:
        """The race service's port: close the round's message, post the reveal and what comes next."""
        await self.courier.race_post(post)

    async def _aside(self, origin: Origin, reply: Reply) -> None:
        """An answer to a control on a channel's daily post: a form opens; everything else only to the person."""
        if reply.form is not None:
            await self.courier.open(origin, bk.form_view(reply.form, bk.metadata(c=origin.channel, t=origin.thread_ts)))
        else:
            await self.courier.tell(origin, reply)

    async def on_daily_action(self, body: dict[str, Any]) -> None:
        """A daily-practice button: the reminder's Start (today's review), a leech's Reset."""
        origin = from_action(body)
        async with self.jobs.run(origin):
            action = (body.get("actions") or [{}])[0]
            action_id = str(action.get("action_id", ""))
            key = f"{origin.user}:{action.get('action_ts', '')}:{action_id}"[:200]  # a redelivered Start starts nothing new
            reply = await self.service.handle(origin.actor(), rq.Act(action_id, key=key))
            await self.commands.in_quiz_home(origin, reply, private=True)  # a review is private wherever it is asked for

    async def on_home_start(self, body: dict[str, Any]) -> None:
        """A Start button on the Home tab: a quiz in the learner's direct messages."""
        origin = from_action(body)
        async with self.jobs.run(origin):
            action = (body.get("actions") or [{}])[0]
            request = rq.Start(pack=str(action.get("value") or "") or None)  # with a quiz running, it asks first
            try:
                reply = await self.service.handle(origin.actor(), request)
            except QuizError:
                await self.commands.refresh_home(origin)  # a pack gone since Home was shown: show what is there now
                raise
            await self.courier.deliver(origin, reply, Place(await self.api.open_dm(origin.user)))

    async def on_answer(self, body: dict[str, Any], view: dict[str, Any], *, stored: asyncio.Event | None = None) -> None:
        """The answer modal was submitted: its callback_id is the core's action id.

        `stored` is set once the core has answered (the answer is in the database).
        """
        value = input_value(view, bk.ANSWER_BLOCK, bk.ANSWER_INPUT)
        if not value.strip():
            return  # refused in the acknowledgement
        origin = from_view(body, bk.read_metadata(view.get("private_metadata")))

        async def running(note: str) -> None:  # code: its grading is recorded, the form may close
            if stored is not None:
                stored.set()
            await self.courier.tell(origin, notice(note))

        async with self.jobs.run(origin):
            action = str(view.get("callback_id", ""))
            key = str(view.get("id") or "") or None
            reply = await self.service.handle(origin.actor(), rq.Act(action, (value,), key=key, progress=running))
            if stored is not None:
                stored.set()
            if reply.aside:
                await self.courier.tell(origin, reply)
                return
            place = Place(origin.channel, origin.thread_ts) if origin.channel else None
            await self.courier.deliver(origin, reply, place, update_ts=origin.message_ts)

    async def on_run(self, body: dict[str, Any], view: dict[str, Any], stored: asyncio.Event | None = None) -> None:
        code = input_value(view, bk.CODE_BLOCK, bk.CODE_INPUT)
        if not code.strip():
            return
        origin = from_view(body, bk.read_metadata(view.get("private_metadata")))
        async with self.jobs.run(origin):
            request = rq.RunCode(code, progress=telling(stored, []) if stored is not None else None)
            await self.courier.tell(origin, await self.service.handle(origin.actor(), request), persistent=True)

    async def on_pack_load(self, body: dict[str, Any], view: dict[str, Any]) -> None:
        files = view_files(view, bk.PACK_BLOCK, bk.PACK_INPUT)
        if not files:
            return
        origin = from_view(body, bk.read_metadata(view.get("private_metadata")))
        force = bool(selected(view, bk.FORCE_BLOCK, bk.FORCE_INPUT))
        async with self.jobs.run(origin):
            await self.commands.load_packs(origin, files, force=force)

    async def on_message(self, body: dict[str, Any], *, accepted: asyncio.Event | None = None) -> None:
        """A message in the bot's DM or in a quiz thread: code answers and pack uploads.

        `accepted` is set once the message may be acknowledged (see `message_then_ack`).
        """
        event = body.get("event") or {}
        if event.get("bot_id") or not isinstance(event.get("user"), str):
            return
        origin = from_event(body)
        kind = message_kind(origin, event)
        if accepted is not None and kind != CODE:
            accepted.set()  # only code that may be an answer waits for its grading row, not for the learner's other work
        if kind == CHAT:
            return  # conversation: nothing to do, nothing to ask (not even the person's language)
        async with self.jobs.run(origin):
            await self.commands.message(origin, event, accepted)

    async def on_home_opened(self, body: dict[str, Any]) -> None:
        event = body.get("event") or {}
        if event.get("tab") != "home":
            return
        origin = from_event(body)
        async with self.jobs.run(origin):
            await self.commands.publish_home(origin)
            delivered()
