"""QuizService: the one entry into the core. Front ends call `handle(actor, request)`.

The service only wires the parts together and dispatches; each rule lives in one place:

- `catalogue.py`  which packs exist and are enabled where (cached)
- `gate.py`       loading, locking and saving sessions; ownership and expiry
- `flow.py`       a quiz from start to summary; the item rules come from `items/`
- `views.py`      stats and the pack list
- `admin.py`      who is an admin; loading, enabling and removing packs
- `race/`         races in a channel, leaderboards and the stats picture (`races`, `social`)
"""

from __future__ import annotations

import logging
import random
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import timedelta
from typing import Any, TypeVar

from . import actions as ax
from . import render
from . import requests as rq
from .admin import Admins, PackAdmin
from .answer import Answers
from .catalogue import Catalogue
from .daily import DailyService
from .daily import actions as dx
from .daily.handlers import DailyDesk, PostNow
from .errors import NotAllowed, NotYourQuiz, QuizError, QuizExpired, SaveConflict, StaleAction
from .flow import Flow, resume_button
from .gate import Gate
from .importing import PendingPacks
from .items import codetext
from .items.report import run_report
from .model import Actor, ImportReport, Owner, PackInfo, Session
from .packs import Pack
from .ports import Clock, CodeRunner, Repository, RunRequest
from .privacy import MyData, PersonalData
from .race import RaceService, SocialService, is_race_action, with_image
from .replies import Button, Message, Reply, Text, Tone, notice
from .work import RUN, Unfinished

log = logging.getLogger(__name__)

Handler = Callable[[Actor, Any], Awaitable[Reply]]
T = TypeVar("T")
SAVE_TRIES = 3  # a change whose save lost to another write is read and made again, this many times in all


async def retried(change: Callable[[], Awaitable[T]]) -> T:
    """Make a change of a session; when its save lost to another write, read the session again and redo it.

    With several bot processes on one database, another process may write the same session between
    this one's read and save: the next item's message being remembered (`set_anchor`) just as the
    learner's click on it reaches this process. (`set_anchor` itself never raises a lost save: it
    drops an anchor the quiz has moved past.) The conditional update refuses the save and keeps
    nothing; doing the change again on what is stored now is then right. A click that is really stale
    (the item moved on, or the click was already recorded) is refused again on the new read.
    """
    for _ in range(SAVE_TRIES - 1):
        try:
            return await change()
        except SaveConflict:
            log.info("a session changed under a save (another process wrote it); reading it again")
    return await change()


class QuizService:
    """Quizzes, answers, progress and pack administration, independent of any chat platform."""

    def __init__(
        self,
        *,
        repository: Repository,
        runner: CodeRunner | None,
        clock: Clock,
        admins: frozenset[str] = frozenset(),
        rng: random.Random | None = None,
        session_ttl: timedelta = timedelta(hours=24),
        races: RaceService | None = None,
        social: SocialService | None = None,
        daily: DailyService | None = None,
        answers: Answers | None = None,
        post_now: PostNow | None = None,
        personal_data: PersonalData | None = None,
        work: Unfinished | None = None,
    ) -> None:
        self._repo = repository
        self.work = work  # None: work in progress is not recorded (nothing tells of work a restart dropped)
        self.races = races  # None: this process has no race store (races are refused politely)
        self.social = social
        self._runner = runner
        self._clock = clock
        self.catalogue = Catalogue(repository)
        self.gate = Gate(repository, clock, ttl=session_ttl)
        self.admins = Admins(admins)
        self.flow = Flow(
            repository=repository,
            catalogue=self.catalogue,
            gate=self.gate,
            clock=clock,
            runner=runner,
            rng=rng or random.Random(),
            work=work,
            answers=answers,
        )
        self.answers = self.flow.answers  # every graded answer is recorded through it (bot.core.answer)
        from .views import Views

        self.views = Views(repository=repository, catalogue=self.catalogue, clock=clock)
        self.pack_admin = PackAdmin(
            catalogue=self.catalogue, admins=self.admins, runner=runner, pending=PendingPacks(repository, clock)
        )
        self.my_data = MyData(repository=repository, clock=clock, admins=self.admins, store=personal_data)
        self._handlers: dict[type, Handler] = {
            rq.Start: self._start,
            rq.Act: self._act,
            rq.Submit: self._submit,
            rq.OpenAnswer: self._on_current(ax.ANSWER),
            rq.Hint: self._on_current(ax.HINT),
            rq.Skip: self._on_current(ax.SKIP),
            rq.Stop: self._on_current(ax.STOP),
            rq.Current: self._current,
            rq.Stats: self._stats,
            rq.Packs: lambda actor, r: self.views.packs(actor),
            rq.Help: self._help,
            rq.RunCode: self._run_code,
            rq.PackLoad: lambda actor, r: self.pack_admin.load(
                actor, r.filename, r.data, force=r.force, unproven=r.unproven, progress=r.progress
            ),
            rq.PackEnable: lambda actor, r: self.pack_admin.set_enabled(actor, r.pack, r.enabled),
            rq.PackRemove: lambda actor, r: self.pack_admin.remove(actor, r.pack, confirmed=r.confirmed),
            rq.RaceStart: lambda actor, r: self._racing().start(
                actor, pack=r.pack, topic=r.topic, difficulty=r.difficulty, rounds=r.rounds, seconds=r.seconds
            ),
            rq.RaceStop: lambda actor, r: self._racing().stop(actor),
            rq.Leaderboard: lambda actor, r: self._boards().leaderboard(
                actor, period=r.period, pack=r.pack, mention=mention_for(actor.platform), picture=actor.platform == "console"
            ),
            rq.Privacy: lambda actor, r: self._boards().privacy(actor, visible=r.visible),
            rq.MyDataExport: lambda actor, r: self.my_data.export(actor, r.user_id, r.name),
            rq.MyDataDelete: lambda actor, r: self.my_data.delete(actor, r.user_id, r.name),
        }
        # Daily practice: its requests, clicks on daily posts, the review's bookkeeping (see bot.core.daily).
        self.daily: DailyDesk | None = None
        self._handlers.update({kind: self._no_daily for kind in rq.DAILY_REQUESTS})
        if daily is not None:
            self.daily = DailyDesk(
                daily=daily,
                repository=repository,
                catalogue=self.catalogue,
                gate=self.gate,
                clock=clock,
                runner=runner,
                rng=rng or random.Random(),
                flow=self.flow,
                post_now=post_now,
            )
            self.flow.review_parts = self.daily.review_parts
            self._handlers.update(self.daily.handlers())
            self._handlers[rq.Stats] = self._stats_with_daily

    # ----------------------------------------------------------------- the one entry

    async def handle(self, actor: Actor, request: rq.Request) -> Reply:
        """Answer one user action. Raise QuizError (and its children) for what the person must fix."""
        handler = self._handlers[type(request)]
        if self.work is None:
            return await handler(actor, request)
        try:
            reply = await handler(actor, request)
        except QuizError as exc:
            exc.before = await self._unfinished(actor)
            raise
        if reply.form is not None:  # a form opens alone: the notice waits for the next reply
            return reply
        before = await self._unfinished(actor)
        return replace(reply, messages=(*before, *reply.messages)) if before else reply

    async def _unfinished(self, actor: Actor) -> tuple[Message, ...]:
        """Notices for the learner's work a stopped or killed process never finished (each shown once)."""
        assert self.work is not None
        try:
            return await self.work.notices(actor)
        except Exception:  # the reply goes out regardless; the rows stay for the next request
            log.exception("could not look for unfinished work")
            return ()

    async def _start(self, actor: Actor, request: rq.Start) -> Reply:
        if request.replace or request.owner is not None:
            return await self.flow.start(actor, request)
        active = await self.gate.active(Owner.user(actor))
        if active is None or active.current is None:
            return await self.flow.start(actor, request)
        # Ask first: a quiz the learner lost sight of (a dismissed message) is still theirs to resume.
        async with self.gate.editing(active.id):
            session = await self.gate.load(actor, active.id)
            if session.status != "active":
                return await self.flow.start(actor, request)
            session.filters["next"] = {
                "pack": request.pack,
                "topic": request.topic,
                "difficulty": request.difficulty,
                "count": request.count,
                "question": request.question,
            }
            await self.gate.save(session)
        text = (
            f"You have a quiz running: question {session.position + 1} of {len(session.items)}. "
            "Resume it, or start the new one (the running quiz then stops)."
        )
        new = Button(ax.make(session.id, session.position, ax.RESTART, "next"), "Start new", role="restart")
        message = Message(kind="notice", parts=(Text(text),), rows=((resume_button(session), new),), session_id=session.id)
        return Reply(messages=(message,))

    async def _act(self, actor: Actor, request: rq.Act) -> Reply:
        if is_race_action(request.action):
            return await self._racing().act(actor, request.action, request.values)
        parsed = ax.parse(request.action)
        if parsed is None:
            daily_action = dx.parse(request.action) if self.daily is not None else None
            if daily_action is not None and self.daily is not None:
                return await self.daily.on_action(actor, daily_action)
            raise QuizError("That button is not one of this bot's.")
        if parsed.session_id == ax.NO_SESSION:
            return await self._admin_action(actor, parsed)
        if self.daily is not None and await self.is_daily_post(parsed.session_id):
            return await self.daily.on_post(actor, parsed, request.values, key=request.key)

        async def change() -> Reply:
            async with self.gate.editing(parsed.session_id):
                session = await self.gate.load(actor, parsed.session_id)
                if parsed.verb == ax.RESTART:
                    return await self.flow.restart(actor, session, use_next=parsed.argument == "next")
                if parsed.verb == ax.CURRENT:
                    return await self.flow.current(session)
                self.gate.require_active(session)
                if parsed.position != session.position:
                    raise StaleAction()
                return await self._on_item(actor, session, parsed, list(request.values), request.key)

        return await retried(change)

    async def _admin_action(self, actor: Actor, action: ax.Action) -> Reply:
        if action.verb == ax.REMOVE_PACK:
            return await self.pack_admin.remove(actor, action.argument, confirmed=True)
        if action.verb == ax.DELETE_DATA:
            return await self.my_data.delete(actor, action.argument, confirmed=True)
        if action.verb == ax.KEEP_DATA:
            return await self.my_data.keep(actor, action.argument)
        if action.verb == ax.LOAD_CONVERTED:
            return await self.pack_admin.load_converted(actor, action.argument)
        if action.verb == ax.DROP_CONVERTED:
            return await self.pack_admin.cancel_converted(actor, action.argument)
        if action.verb == ax.CANCEL:
            return notice(f"Nothing was changed: `{action.argument}` stays.")
        raise QuizError("That button is not one of this bot's.")

    async def _submit(self, actor: Actor, request: rq.Submit) -> Reply:
        if self.daily is not None and request.session_id is not None and await self.is_daily_post(request.session_id):
            # A code block under a channel's daily post (its thread, a reply): graded like its Answer form.
            return await self.daily.on_thread_text(
                actor, request.session_id, request.text, request.progress, key=request.key
            )
        if request.session_id is not None:
            found = await self.gate.find(actor, request.session_id)
        elif request.code_only:
            found = await self.gate.for_code(actor)
        else:
            found = await self.gate.find(actor)

        async def change() -> Reply:
            async with self.gate.editing(found.id):
                session = await self.gate.load(actor, found.id)
                self.gate.require_active(session)
                item = session.current
                assert item is not None
                _, question = await self.flow.question(item)
                verb = self.flow.text_verb(question, request.text, code_only=request.code_only)
                action = ax.Action(session.id, session.position, verb)
                return await self._on_item(actor, session, action, [request.text], request.key)

        return await retried(change)

    async def _on_item(self, actor: Actor, session: Session, action: ax.Action, values: list[str], key: str | None) -> Reply:
        """Apply an input to the current item; a daily review also counts the graded item."""
        item = session.current
        reply = await self.flow.on_item(actor, session, action, values, key)
        if self.daily is not None:
            reply = await self.daily.after_item(actor, session, item, reply)
        return reply

    async def _no_daily(self, actor: Actor, request: Any) -> Reply:
        raise QuizError("Daily practice is not set up in this bot.")

    async def _stats_with_daily(self, actor: Actor, request: rq.Stats) -> Reply:
        reply = await self._stats(actor, request)
        if self.daily is None:
            return reply
        daily = await self.daily.stats(actor, request.user_id)
        return replace(reply, messages=(*reply.messages, daily))

    def _on_current(self, verb: str) -> Handler:
        async def handle(actor: Actor, request: Any) -> Reply:
            session = await self.gate.find(actor)
            return await self._act(actor, rq.Act(ax.make(session.id, session.position, verb)))

        return handle

    async def _current(self, actor: Actor, request: rq.Current) -> Reply:
        session = await self.gate.find(actor)
        return await self.flow.current(session)

    async def _stats(self, actor: Actor, request: rq.Stats) -> Reply:
        """The stats text, with the progress picture after it when pictures are set up (text stays first)."""
        reply = await self.views.stats(actor, user_id=request.user_id, name=request.name)
        if self.social is None or not request.picture or not reply.messages:
            return reply
        try:
            image = await self.social.progress_picture(actor, user_id=request.user_id, who=request.name)
        except Exception:  # the text answers on its own when the picture fails
            log.exception("the progress picture failed")
            return reply
        return replace(reply, messages=(with_image(reply.messages[0], image), *reply.messages[1:]))

    def _racing(self) -> RaceService:
        if self.races is None:
            raise QuizError("Races are not set up in this process.")
        return self.races

    def _boards(self) -> SocialService:
        if self.social is None:
            raise QuizError("Leaderboards are not set up in this process.")
        return self.social

    async def _help(self, actor: Actor, request: rq.Help) -> Reply:
        return Reply(messages=(render.help_message(),))

    async def _run_code(self, actor: Actor, request: rq.RunCode) -> Reply:
        if self._runner is None:
            raise QuizError("Code can't be run here: the sandbox is not configured.")
        code = codetext.check(codetext.code_of(request.text), limit=self._runner.max_code_bytes)
        if self.work is None:
            outcome = await self._runner.run(RunRequest(code=code, owner=actor.key))
        else:
            # each run is its own item: a second run must not replace the first one's row
            async with self.work.running(actor, item=f"run:{uuid.uuid4().hex}", kind=RUN):
                outcome = await self._runner.run(RunRequest(code=code, owner=actor.key))
        tone = Tone.SUCCESS if outcome.status == "passed" else Tone.FAILURE
        parts = tuple(run_report(outcome, graded=False, code=code))
        return Reply(messages=(Message(kind="run", title="Run", parts=parts, tone=tone),))

    # ----------------------------------------------------------------- for front ends

    def is_admin(self, actor: Actor) -> bool:
        return self.admins.allows(actor)

    async def session(self, session_id: str) -> Session | None:
        return await self.gate.get(session_id)

    async def active_session(self, actor: Actor) -> Session | None:
        return await self.gate.active(Owner.user(actor))

    async def is_daily_post(self, session_id: str) -> bool:
        """Say whether an action's session slot names a channel's daily post (answers there are private)."""
        if self.daily is None or session_id == ax.NO_SESSION or await self.gate.get(session_id) is not None:
            return False
        return await self.daily.owns(session_id)

    async def daily_post_at(self, platform: str, message_ref: str, *, channel_id: str | None = None) -> str | None:
        """Return the id of the daily post that a platform message is, so text under it answers it; else None.

        `message_ref` is the platform's id of the message a text was sent under (a thread's parent, a
        replied-to message); `channel_id`, when known, must be the post's channel.
        """
        if self.daily is None:
            return None
        post = await self.daily.daily.post_at(platform, message_ref, channel_id)
        return post.id if post is not None else None

    async def set_anchor(self, session_id: str, *, position: int | None = None, **anchor: str) -> None:
        """Remember where the quiz lives on the platform (a thread, the message of the item at `position`).

        It never fails or refuses anything the learner did: it runs after the item was posted, so the
        learner's answer to it may reach another process and be stored first. A save that lost is
        made again on a fresh read while the quiz is still at `position`; once the quiz has moved past
        it, this item's message is no longer the one to remember (whoever posted the newer item
        remembers that one) and nothing is written. Should the saves keep losing, the anchor is left
        as it was, with a warning: the answers' saves always go first.
        """
        for _ in range(SAVE_TRIES):
            async with self.gate.editing(session_id):
                session = await self.gate.get(session_id)
                if session is None or (position is not None and session.position != position):
                    return
                session.anchor.update(anchor)
                try:
                    await self.gate.save(session)
                    return
                except SaveConflict:
                    log.info("quiz %s changed while its anchor was saved (another process wrote it); reading it again", session_id)
        log.warning("quiz %s kept changing while its anchor was saved; the anchor is left as it was", session_id)

    async def race_anchor(self, race_id: str, **anchor: str) -> None:
        """Remember where a race's current round was posted, so its closing can edit that message."""
        if self.races is not None:
            await self.races.set_anchor(race_id, dict(anchor))

    async def leaderboard_rank(self, actor: Actor) -> int | None:
        """The learner's place by points this week (Slack App Home); None when hidden, absent or off."""
        return await self.social.rank(actor) if self.social is not None else None

    async def enabled_packs(self, scope: str) -> list[PackInfo]:
        return await self.catalogue.enabled(scope)

    async def enabled_packs_all(self) -> list[PackInfo]:
        """Every stored pack, whatever any scope's settings say."""
        return await self.catalogue.listing()

    async def pack_names(self, scope: str) -> list[str]:
        return await self.catalogue.pack_names(scope)

    async def topic_names(self, scope: str, pack_id: str | None = None) -> list[str]:
        return await self.catalogue.topic_names(scope, pack_id)

    async def pack(self, pack_id: str) -> Pack | None:
        return await self.catalogue.pack(pack_id)

    async def import_pack(self, pack: Pack, *, force: bool = False) -> ImportReport:
        return await self.catalogue.import_pack(pack, force=force)

    # ----------------------------------------------------------------- shorthands (tests, console)

    async def start(self, actor: Actor, **options: Any) -> Reply:
        """Start a quiz, stopping any running one without asking (tests, scripts)."""
        options.setdefault("replace", True)
        return await self.handle(actor, rq.Start(**options))

    async def act(self, actor: Actor, action: str, values: tuple[str, ...] | list[str] = (), *, key: str | None = None) -> Reply:
        return await self.handle(actor, rq.Act(action, tuple(values), key))

    async def submit_text(self, actor: Actor, text: str, *, session_id: str | None = None, code_only: bool = False) -> Reply:
        return await self.handle(actor, rq.Submit(text, code_only, session_id))

    async def answer_form(self, actor: Actor) -> Reply:
        return await self.handle(actor, rq.OpenAnswer())

    async def hint(self, actor: Actor) -> Reply:
        return await self.handle(actor, rq.Hint())

    async def skip(self, actor: Actor) -> Reply:
        return await self.handle(actor, rq.Skip())

    async def stop(self, actor: Actor) -> Reply:
        return await self.handle(actor, rq.Stop())

    async def current(self, actor: Actor) -> Reply:
        return await self.handle(actor, rq.Current())

    async def stats(self, actor: Actor, *, user_id: str | None = None, name: str | None = None) -> Reply:
        return await self.handle(actor, rq.Stats(user_id, name))

    async def packs(self, actor: Actor) -> Reply:
        return await self.handle(actor, rq.Packs())

    def help(self) -> Reply:
        return Reply(messages=(render.help_message(),))

    async def run_code(self, actor: Actor, text: str) -> Reply:
        return await self.handle(actor, rq.RunCode(text))

    async def load_pack(self, actor: Actor, filename: str, data: bytes, *, force: bool = False) -> Reply:
        return await self.handle(actor, rq.PackLoad(filename, data, force))

    async def set_enabled(self, actor: Actor, pack_id: str, enabled: bool) -> Reply:
        return await self.handle(actor, rq.PackEnable(pack_id, enabled))


def mention_for(platform: str) -> Callable[[str], str]:
    """How a leaderboard names a person: a mention on Discord and Slack (both read `<@id>`), else the id."""
    if platform in ("discord", "slack"):
        return lambda user_id: f"<@{user_id}>"
    return lambda user_id: user_id


def error_reply(exc: QuizError) -> Reply:
    """Turn a core error into the private note the person sees; an ended quiz offers a new one."""
    tone = Tone.ERROR if isinstance(exc, NotYourQuiz | NotAllowed) else Tone.WARNING
    reply = notice(str(exc), tone=tone)
    if isinstance(exc, QuizExpired) and exc.session_id:
        again = Button(ax.make(exc.session_id, 0, ax.RESTART), "New quiz", "primary", role="restart")
        reply = Reply(messages=(replace(reply.messages[0], rows=((again,),)),))
    if exc.before:  # work a restart dropped: told first, whatever this request's answer
        reply = replace(reply, messages=(*exc.before, *reply.messages))
    return reply

