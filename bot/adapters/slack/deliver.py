"""Where replies go in Slack: the quiz's DM or thread, the message acted on, or a private note."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any, TypeVar, cast

from bot.core import queries as q
from bot.core.errors import QuizError
from bot.core.i18n import _, current, use_locale
from bot.core.model import Anchor
from bot.core.race import ChannelPost
from bot.core.replies import Message, Reply, Tone, notice
from bot.core.service import QuizService, error_reply
from bot.metrics import delivered, finished

from . import render as bk
from .api import Place, SlackApi, SlackCallFailed
from .origin import Origin, from_action

log = logging.getLogger("quizbot.slack")


QUIZ_MESSAGES = ("item", "summary")  # the quiz itself: posted where the quiz lives
CHANNEL_LOST = ("not_in_channel", "channel_not_found", "is_archived")  # the bot can no longer post in the quiz's channel
ACK_LANGUAGE_S = 1.0  # an acknowledgement's note waits this long at most for the person's language (Slack allows 3 s)


Delivery = TypeVar("Delivery", bound=Callable[..., Awaitable[None]])


def in_its_language(deliver: Delivery) -> Delivery:
    """Render a reply, and the front end's own words around it, in the language the core answered in."""

    @functools.wraps(deliver)
    async def delivering(self: Any, origin: Origin, reply: Reply, *args: Any, **kwargs: Any) -> None:
        with use_locale(reply.locale or current()):
            await deliver(self, origin, reply, *args, **kwargs)

    return cast(Delivery, delivering)


class Courier:
    """Post, update and open what the core replied, in the place each reply belongs."""

    def __init__(self, *, api: SlackApi, service: QuizService) -> None:
        self._api = api
        self._service = service

    async def quiz_home(self, origin: Origin, *, private: bool = False) -> tuple[Place, str | None]:
        """Pick where a new quiz runs: a thread when started in a channel, else the DM with the bot.

        A `private` one (the learner's personal review) always runs in the DM.
        """
        note = None
        if origin.channel and origin.channel[0] in "CG" and not private:
            header = notice("🧠 " + _("{who} started a quiz. It runs in this thread.").format(who=f"<@{origin.user}>"))
            try:
                ts = await self._api.post(Place(origin.channel), header.messages[0])
                return Place(origin.channel, ts), None
            except SlackCallFailed as exc:
                note = _(
                    "I can't post in this channel ({error}); invite me with `/invite` to quiz here. "
                    "Your quiz is in our direct messages."
                ).format(error=exc.error)
        dm = await self._api.open_dm(origin.user)
        if note is None and origin.channel != dm:
            note = _("Your review is private: it is in our direct messages.") if private else _("Your quiz is in our direct messages.")
        return Place(dm), note

    async def language(self, origin: Origin, *, within: float | None = None) -> str:
        """The language of the person's private replies (their choice, their Slack client's, the workspace's).

        `within` bounds the wait (a note in an acknowledgement: users.info may be rate limited); the
        workspace's language after that.
        """
        try:
            try:
                return await asyncio.wait_for(self._service.ask(q.LearnerLanguage(origin.actor())), within)
            except TimeoutError:
                log.info("no language for %s within %.1f s; the workspace's this time", origin.user, within)
                return await self._service.ask(q.ServerLanguage("slack", origin.team))
        except QuizError:  # told and logged where it happened (the database's faults): English will do
            return "en"
        except Exception:  # a note in English is better than none
            log.exception("could not tell which language %s reads", origin.user)
            return "en"

    async def refused(
        self, ack: Callable[..., Awaitable[Any]], body: dict[str, Any], block: str, message: str, *, ok: bool, **values: str
    ) -> bool:
        """Acknowledge a form; unless `ok`, refuse it with `message` (filled with `values`) under `block`, in the person's language."""
        if ok:
            await ack()
            return False
        with use_locale(await self.language(from_action(body), within=ACK_LANGUAGE_S)):
            await ack(response_action="errors", errors={block: _(message).format(**values) if values else _(message)})
        return True

    @in_its_language
    async def deliver(self, origin: Origin, reply: Reply, place: Place | None, *, update_ts: str | None = None) -> None:
        """Show a quiz reply: open its form, update the message acted on, post the rest in order."""
        if reply.form is not None:
            meta = bk.metadata(c=place.channel if place else None, t=place.thread_ts if place else None, m=update_ts)
            await self.open(origin, bk.form_view(reply.form, meta))
            return
        if place is None:
            place = Place(await self._api.open_dm(origin.user))
        messages = reply.messages
        if reply.update is not None and update_ts:
            try:
                await self._api.update(place.channel, update_ts, reply.update)
            except SlackCallFailed:  # deleted, or not to be edited: the answer is stored, so show its grade anew and go on
                messages = (reply.update, *messages)
        elif reply.update is not None:
            messages = (reply.update, *messages)  # no message to edit: show it as a new one
        for message in messages:
            if reply.private and message.kind not in QUIZ_MESSAGES and place.thread_ts:
                # A private note about a quiz in a channel's thread (a hint, a refusal): only the learner sees it.
                await self._tell_one(origin, message, persistent=False)
                continue
            try:
                ts = await self._api.post(place, message)
            except SlackCallFailed as exc:
                if exc.error not in CHANNEL_LOST:
                    raise
                place = await self._moved_to_dm(origin, place, exc.error)  # the quiz goes on in the DM
                ts = await self._api.post(place, message)
            if message.kind == "item" and message.session_id:
                anchor = Anchor(place.channel, place.thread_ts, ts)
                await self._service.ask(q.RememberQuiz(message.session_id, anchor, message.position))
        delivered()  # for the metrics: the request had an answer

    async def _moved_to_dm(self, origin: Origin, lost: Place, error: str) -> Place:
        """The learner's DM, opened with a word on why their quiz left the channel it ran in."""
        dm = Place(await self._api.open_dm(origin.user))
        if dm.channel == lost.channel:
            raise SlackCallFailed("chat.postMessage", error)
        text = _("I can't post in <#{channel}> any more ({error}), so your quiz goes on here.").format(channel=lost.channel, error=error)
        await self._api.post(dm, notice("ℹ️ " + text).messages[0])
        return dm

    @in_its_language
    async def announce(self, origin: Origin, reply: Reply) -> None:
        """Show a public reply (a race, a leaderboard) in the channel it was asked in; private ones only to the person."""
        channel = origin.channel
        if reply.private or not channel or origin.in_dm:
            await self.tell(origin, reply)
            return
        for message in reply.messages:
            ts = await self._api.post(Place(channel), message)
            if message.kind == "item" and message.session_id:
                await self._service.ask(q.RememberRace(message.session_id, {"channel": channel, "ts": ts}))
        delivered()

    async def race_post(self, post: ChannelPost) -> None:
        """Post a race's round end in its channel: edit the closed round, then the reveal and the next round."""
        channel, ts = post.anchor.get("channel"), post.anchor.get("ts")
        if post.closed_round is not None and channel and ts:
            try:
                await self._api.update(channel, ts, post.closed_round)
            except SlackCallFailed:
                log.info("could not close race %s's round message", post.race_id)
        for number, message in enumerate(post.messages):
            try:
                posted = await self._api.post(Place(post.channel_id), message)
            except SlackCallFailed:
                return  # logged by the API; the race goes on
            if post.next_round is not None and number == len(post.messages) - 1:
                await self._service.ask(q.RememberRace(post.race_id, {"channel": post.channel_id, "ts": posted}))

    async def open(self, origin: Origin, view: dict[str, Any]) -> None:
        if not origin.trigger_id:
            raise QuizError(_("Press **Answer** under the question to open the form."))
        await self._api.open_view(origin.trigger_id, view)
        delivered()

    @in_its_language
    async def outcome(self, origin: Origin, reply: Reply) -> None:
        """Edit the message a confirmation's button was on into the outcome (`reply.update`), buttons gone.

        An ephemeral prompt (a command's answer) can only be replaced through the click's response_url;
        a posted one (in the DM) is edited with chat.update. If neither works, the outcome is told anew.
        """
        if reply.update is None:
            await self.tell(origin, reply)
            return
        edited = await self._edit_clicked(origin, reply.update)
        rest = reply.messages if edited else (reply.update, *reply.messages)
        if rest:
            await self.tell(origin, Reply(messages=rest, private=reply.private))
        else:
            delivered()

    async def _edit_clicked(self, origin: Origin, message: Message) -> bool:
        routes: list[Callable[[], Awaitable[Any]]] = []
        url = origin.response_url
        if origin.channel and origin.message_ts and not origin.ephemeral:
            channel, ts = origin.channel, origin.message_ts
            routes.append(lambda: self._api.update(channel, ts, message))
        if url:
            routes.append(lambda: self._api.respond(url, message, replace=True))
        for route in routes:
            try:
                await route()
                return True
            except SlackCallFailed:
                continue
        return False

    @in_its_language
    async def tell(self, origin: Origin, reply: Reply, *, persistent: bool = False) -> None:
        """Send a reply only the person sees: the response_url, an ephemeral message, or the DM."""
        messages = reply.messages or ((reply.update,) if reply.update is not None else ())
        for message in messages:
            await self._tell_one(origin, message, persistent=persistent)
            delivered()

    async def _tell_one(self, origin: Origin, message: Message, *, persistent: bool) -> None:
        routes: list[Callable[[], Awaitable[Any]]] = []
        url, channel = origin.response_url, origin.channel
        if url and origin.via_command:
            routes.append(lambda: self._api.respond(url, message))
        if channel:
            if persistent and origin.in_dm:
                routes.append(lambda: self._api.post(Place(channel), message))
            else:
                routes.append(lambda: self._api.ephemeral(channel, origin.user, message, thread_ts=origin.thread_ts))
        if url and not origin.via_command:
            routes.append(lambda: self._api.respond(url, message))
        routes.append(self._dm_route(origin.user, message))
        for route in routes:
            try:
                await route()
                return
            except SlackCallFailed:
                continue
        log.error("could not reach %s by any route; the note was: %s", origin.user, message.text()[:200])

    def _dm_route(self, user: str, message: Message) -> Callable[[], Awaitable[Any]]:
        async def post() -> None:
            await self._api.post(Place(await self._api.open_dm(user)), message)

        return post


def _log_failure(task: asyncio.Task[None]) -> None:
    """Log work that failed outside `Jobs.run` (which tells the person): before it, reading who they are."""
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.error("the Slack front end's work after an acknowledgement failed", exc_info=exc)


class Jobs:
    """Run each person's work in order with their other work, with every failure told to them."""

    def __init__(self, courier: Courier) -> None:
        self._courier = courier
        self._inflight: set[asyncio.Task[Any]] = set()
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}

    def acked_then(
        self, acknowledge: Callable[..., Awaitable[None]], work: Callable[..., Coroutine[Any, Any, None]], *, with_view: bool = False
    ) -> Callable[..., Awaitable[None]]:
        """A Bolt listener: `acknowledge(ack, body[, view])`, then `work(body[, view])` as a task (`idle` waits for it).

        Not Bolt's lazy listeners, which run the same way but start from a deep copy of the whole
        request, its context and Web API client included: under a profiler that copy was about 6% of
        the bot's CPU paced at 360 learners, mostly for `/quiz` (docs/reference/measured.md).
        """

        async def listener(ack: Callable[..., Awaitable[Any]], body: dict[str, Any], view: dict[str, Any] | None) -> None:
            args = (body, view) if with_view else (body,)
            await acknowledge(ack, *args)
            task = asyncio.create_task(work(*args), name="quizbot-slack-work")
            task.add_done_callback(_log_failure)
            self.track(task)

        return listener

    def track(self, task: asyncio.Task[Any]) -> None:
        self._inflight.add(task)
        task.add_done_callback(self._inflight.discard)

    async def idle(self) -> None:
        """Wait until no work started after an acknowledgement is running (tests, and a clean shutdown)."""
        while True:
            for _turn in range(5):
                await asyncio.sleep(0)
            pending = {t for t in self._inflight if not t.done() and t is not asyncio.current_task()}
            if not pending:
                return
            await asyncio.wait(pending)

    @asynccontextmanager
    async def run(self, origin: Origin) -> AsyncIterator[None]:
        """Run one person's work: in order with their other work, with every failure told to them."""
        task = asyncio.current_task()
        if task is not None:
            self.track(task)
        # The front end's own words (a usage note, a refusal before the core is asked) in the learner's language.
        with use_locale(await self._courier.language(origin)):
            try:
                async with self._lock(origin):
                    yield
            except QuizError as exc:
                await self._safe_tell(origin, error_reply(exc))
            except SlackCallFailed as exc:
                if exc.method == "download":
                    text = _("I could not fetch the file from Slack: {error}.").format(error=exc.error)
                else:
                    text = _("Slack refused my reply ({error}); please try again.").format(error=exc.error)
                await self._safe_tell(origin, notice(text, tone=Tone.ERROR))
            except Exception:
                log.exception("the Slack front end failed on a request from %s", origin.user)
                text = _("Something went wrong on my side; it was logged. Please try again.")
                await self._safe_tell(origin, notice(text, tone=Tone.ERROR))
        finished()  # the request's last reply is out, if it had one (bot.metrics: from its receipt)

    async def _safe_tell(self, origin: Origin, reply: Reply) -> None:
        try:
            await self._courier.tell(origin, reply)
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


def anchor_of(anchor: Anchor | None) -> tuple[Place | None, str | None]:
    """Where a quiz's messages live, as remembered (`RememberQuiz`): its place, and its item's message."""
    if anchor is None or not anchor.channel:
        return None, None
    return Place(anchor.channel, anchor.thread), anchor.message
