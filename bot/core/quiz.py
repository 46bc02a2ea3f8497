"""The quiz feature's handlers: starting, clicks on quiz items (`qz:`), text answers, the current item.

`QuizDesk.register` puts them in the dispatcher. Other features join in through two hooks, not by
name: `after_item` (a daily review also counts each graded item) and `code_elsewhere` (a code
message sent under something that is not a quiz, such as a channel's daily post).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

from bot.core.i18n import _

from . import actions as ax
from . import queries as q
from . import render
from . import requests as rq
from .dispatch import Dispatcher, Handler, Unclaimed
from .errors import NotAddressed, QuizError, SaveConflict, StaleAction
from .flow import Flow, Progress, running_prompt
from .gate import Gate, Missing
from .items import codetext, kind_of
from .items.report import run_report
from .model import Actor, Anchor, ItemState, Owner, Session, Where, amended
from .ports import CodeRunner, RunRequest
from .replies import Message, Reply, Text, Tone
from .starting import Starter, restart_request
from .work import RUN, Unfinished

log = logging.getLogger(__name__)

T = TypeVar("T")
SAVE_TRIES = 3  # a change whose save lost to another write is read and made again, this many times in all
GUESSED = frozenset({ax.CHOOSE, ax.MULTI, ax.BLANK, ax.CHECK})  # clicks first decided on a guess (`QuizDesk.act`)
FORMS = frozenset({ax.SHORT_FORM, ax.CODE_FORM})  # an answer typed in a form

# A daily review counts each graded item: (actor, session, the item before, the reply) -> the reply.
AfterItem = Callable[[Actor, Session, ItemState | None, Reply], Awaitable[Reply]]


def once(progress: Progress | None) -> Progress | None:
    """Tell `progress` its first note only (a change made again after a lost save runs the code again)."""
    if progress is None:
        return None
    told = False

    async def tell(note: str) -> None:
        nonlocal told
        if not told:
            told = True
            await progress(note)

    return tell


async def retried(change: Callable[[], Awaitable[T]]) -> T:
    """Make a change of a session; when its save lost to another write, read the session again and redo it.

    With several bot processes on one database, another process may write the same session between
    this one's read and save: the next item's message being remembered (`set_anchor`) just as the
    learner's click on it reaches this process. (`set_anchor` itself never raises a lost save: it
    drops an anchor the quiz has moved past.) One process meets it too on PostgreSQL, where an item's
    message is written a moment after it was posted (`bot.storage.anchors`): a `/quiz start` on a
    running quiz read just before that write. So every change of a session by a request comes here:
    a start, a click, a sent answer. The conditional update refuses the save and keeps nothing;
    doing the change again on what is stored now is then right. A click that is really stale (the
    item moved on, or the click was already recorded) is refused again on the new read.
    """
    for _try in range(SAVE_TRIES - 1):
        try:
            return await change()
        except SaveConflict:
            log.info("a session changed under a save (another process wrote it); reading it again")
    return await change()


class QuizDesk:
    """A personal quiz from the learner's side: start, answer, hint, skip, stop, see it again, run code."""

    def __init__(
        self, *, flow: Flow, starter: Starter, gate: Gate, runner: CodeRunner | None, work: Unfinished | None
    ) -> None:
        self.flow = flow
        self.starter = starter
        self.gate = gate
        self._runner = runner
        self._work = work
        self.after_item: list[AfterItem] = []

    def register(self, dispatcher: Dispatcher) -> None:
        dispatcher.request(rq.Start, self.start)
        dispatcher.request(rq.Submit, self.submit)
        dispatcher.request(rq.OpenAnswer, self._on_current(ax.ANSWER))
        dispatcher.request(rq.Hint, self._on_current(ax.HINT))
        dispatcher.request(rq.Skip, self._on_current(ax.SKIP))
        dispatcher.request(rq.Stop, self._on_current(ax.STOP))
        dispatcher.request(rq.Current, self.current)
        dispatcher.request(rq.Help, self.help)
        dispatcher.request(rq.RunCode, self.run_code)
        dispatcher.action(ax.PREFIX, self.act)
        dispatcher.query(q.QuizAnchor, self.anchor)
        dispatcher.query(q.RememberQuiz, self.remember)
        dispatcher.query(q.HelpText, self.help_text)

    async def start(self, actor: Actor, request: rq.Start) -> Reply:
        """Start a quiz, or ask first when one is running; a save lost to another write is made again."""
        return await retried(partial(self._start, actor, request))

    async def _start(self, actor: Actor, request: rq.Start) -> Reply:
        if request.replace or request.owner is not None:
            return await self.starter.start(actor, request)
        active = await self.gate.active(Owner.user(actor))
        if active is None or active.current is None:
            return await self.starter.start(actor, request)
        await self.starter.candidates(actor, request)  # a start that cannot happen is refused before asking
        # Ask first: a quiz the learner lost sight of (a dismissed message) is still theirs to resume.
        async with self.gate.editing(active.id):
            session = await self.gate.load(actor, active.id)
            if session.status != "active":
                return await self.starter.start(actor, request)
            session.filters["next"] = {
                "pack": request.pack,
                "topic": request.topic,
                "difficulty": request.difficulty,
                "count": request.count,
                "question": request.question,
            }
            await self.gate.save(session)
        return Reply(messages=(running_prompt(session, ax.make(session.id, session.position, ax.RESTART, "next")),))

    async def act(self, actor: Actor, request: rq.Act, *, command: bool = False) -> Reply:
        """A click on a quiz item: one read of its session (an id naming no session may be another feature's).

        A plain click on a choice or a menu (`GUESSED`) is first decided on the session as this
        process last stored it, with no read at all (on PostgreSQL, a round trip of the two a click
        makes): the save checks the version, so a guess another process overtook stores nothing. A
        decision on a guess counts only when its save went through; a refusal, or a reply that
        stored nothing, is made again on the session as read. `command`: `/quiz skip` or `stop`.
        """
        parsed = ax.parse(request.action)
        if parsed is None or parsed.session_id == ax.NO_SESSION:
            raise Unclaimed()
        progress = once(request.progress)

        async def decide(session: Session) -> Reply:
            if parsed.verb == ax.RESTART:
                return await self._restart(actor, session, use_next=parsed.argument == "next")
            anchor = session.anchor
            if parsed.verb == ax.CURRENT:
                return amended(await self.flow.current(session), anchor=anchor)
            repeated = session.graded_by(request.key)
            if repeated is not None and (command or parsed.verb == ax.STOP):  # a skip or stop command, a stop click
                return await self._again(session)
            if repeated is not None:  # the same click again: its one grade, in place, and nothing new
                if not session.items[repeated].done:
                    return Reply(anchor=anchor)
                return amended(await self.answered(session, repeated, then=False), anchor=anchor)
            if parsed.verb in FORMS and 0 <= parsed.position < session.position and session.items[parsed.position].skipped:
                raise StaleAction()  # a form opened before a skip: its answer was not taken, and nothing shows that but this
            if 0 <= parsed.position < session.position and session.status in ("active", "finished"):
                # A second click made before (or after) the first one's reply: what follows is shown by
                # that reply, so only the grade in place; after a restart, the first reply may be lost.
                then = not self.gate.reply_on_its_way(session, parsed.position)
                return amended(await self.answered(session, parsed.position, then=then), anchor=anchor)
            self.gate.require_active(session)
            if parsed.position != session.position:
                raise StaleAction()
            values = list(request.values)
            reply = await self.on_item(actor, session, parsed, values, request.key, progress)
            if session.position > parsed.position or session.status == "finished":
                self.gate.handed(session.id, parsed.position)
            return amended(reply, anchor=anchor)

        async def change() -> Reply:
            async with self.gate.editing(parsed.session_id):
                if parsed.verb in GUESSED:
                    guess, stored = None, -1
                    try:
                        guess = await self.gate.load(actor, parsed.session_id, guess_at=parsed.position)
                        stored = guess.version
                        reply = await decide(guess)
                    except QuizError:
                        if guess is not None and guess.version != stored:
                            raise  # refused after its save went through: as it would be on a read
                        # refused on a guess (or its save lost): decided again below, on what is stored
                    else:
                        if guess.version != stored:
                            return reply  # its save went through: the guess was the stored session
                try:
                    session = await self.gate.load(actor, parsed.session_id)
                except Missing as exc:
                    raise Unclaimed(exc) from exc
                return await decide(session)

        return await retried(change)

    async def _restart(self, actor: Actor, session: Session, *, use_next: bool) -> Reply:
        """New quiz (a summary's button) or Start new (the prompt's). Pressed on a quiz that has ended while a
        newer one runs (a double click, a replayed click, an old summary), it asks first as `/quiz start`
        does: the quiz the first press started is not stopped unasked."""
        if session.status != "active":
            running = await self.gate.active(Owner.user(actor))
            if running is not None and running.id != session.id and running.current is not None:
                return await self._start(actor, restart_request(session, use_next=use_next, replace=False))
        return await self.starter.restart(actor, session, use_next=use_next)

    async def submit(self, actor: Actor, request: rq.Submit) -> Reply:
        if request.session_id is not None:
            try:
                found = await self.gate.find(actor, request.session_id)
            except Missing as exc:  # a daily post's id, say: the same text as its form would send
                raise Unclaimed(exc) from exc
        elif request.where is not None:
            found = await self._answered_at(actor, request.where)
        elif request.code_only:
            found = await self.gate.for_code(actor)
        else:
            found = await self.gate.find(actor)
        progress = once(request.progress) if request.code_only else None

        async def change() -> Reply:
            async with self.gate.editing(found.id):
                session = await self.gate.load(actor, found.id)
                if session.graded_by(request.key) is not None:  # the same message again (a retry): nothing new
                    return Reply(anchor=session.anchor)
                self.gate.require_active(session)
                item = session.current
                assert item is not None
                _, question = await self.flow.question(item)
                verb = self.flow.text_verb(question, request.text, code_only=request.code_only)
                action = ax.Action(session.id, session.position, verb)
                reply = await self.on_item(actor, session, action, [request.text], request.key, progress)
                return amended(reply, anchor=session.anchor)

        return await retried(change)

    async def _answered_at(self, actor: Actor, where: Where) -> Session:
        """The quiz a chat message answers: in a DM the learner's quiz; elsewhere only in that quiz's thread."""
        if where.dm:
            return await self.gate.for_code(actor)
        active = await self.gate.active(Owner.user(actor))
        if active is not None and active.anchor.holds(where):
            return active
        raise Unclaimed(NotAddressed())  # maybe another feature's (a daily post's thread), else just talk

    async def on_item(
        self, actor: Actor, session: Session, action: ax.Action, values: list[str], key: str | None, progress: Progress | None = None
    ) -> Reply:
        """Apply an input to the current item; the `after_item` hooks see the graded item."""
        item = session.current
        reply = await self.flow.on_item(actor, session, action, values, key, progress)
        for hook in self.after_item:
            with self.flow.faults.after_commit("adding to a stored answer's reply"):
                reply = await hook(actor, session, item, reply)
        return reply

    async def answered(self, session: Session, index: int, *, then: bool = True) -> Reply:
        """Item `index` as its answer left it (the update of its message), then what comes next (the current item, or the summary).

        A click on an item already answered is one whose reply never showed (the process stopped
        after storing the answer, before answering Slack or Discord; the message kept its
        buttons): it gets what the answer showed, instead of a bare "already answered" that leaves
        the learner with nothing. The same delivery again, or a second click made before the first
        one's reply while that reply is shown or on its way (`Gate.reply_on_its_way`), only puts the
        grade in place (`then=False`): the next item is posted once, by the click that answered;
        shown already, the grade reads the same; lost with a killed process, it is shown now, and
        `/quiz current` the next item.
        """
        item = session.items[index]
        pack, question = await self.flow.question(item)
        if item.skipped:
            parts, tone = [Text(_("⏭️ Skipped.")), *render.closing(question, correct=False)], Tone.INFO
        else:
            verdict = Text(_("✅ **Correct!**") if item.correct else _("❌ **Not quite.**"))
            said = kind_of(question).graded_notes(question, item)  # a picked choice's own feedback, as the grade said it
            parts = [verdict, *(Text(line) for line in said), *render.closing(question, correct=item.correct)]
            tone = Tone.SUCCESS if item.correct else Tone.FAILURE
        update = render.item_message(session, index, pack, question, final=True, feedback=tuple(parts), tone=tone)
        private = session.owner.kind == "user"
        if not then:
            return Reply(update=update, private=private)
        if session.status == "finished":
            after = await self.flow.summary(session, stopped=False)
        else:
            after = (await self.flow.current(session)).messages[0]
        return Reply(messages=(after,), update=update, private=private)

    def _on_current(self, verb: str) -> Handler:
        async def handle(actor: Actor, request: Any) -> Reply:
            key = getattr(request, "key", None)  # `/quiz skip` and `/quiz stop` name their delivery
            done = None if key is None else await self.flow.commanded(actor, key)
            if done is not None:  # delivered again (maybe to another process): answered, never done twice
                return await self._again(await self.gate.load(actor, done))
            session = await self.gate.find(actor)
            if key is not None:  # noted first: a repeat reaching a quiz started since leaves it alone
                await self.flow.command(actor, key, session.id)
            return await self.act(actor, rq.Act(ax.make(session.id, session.position, verb), key=key), command=key is not None)

        return handle

    async def _again(self, session: Session) -> Reply:
        """A skip or stop delivered again: the quiz it acted on as it is now (the current item, or the summary)."""
        if session.status in ("stopped", "finished"):
            summary = await self.flow.summary(session, stopped=session.status == "stopped")
            return Reply(messages=(summary,), private=session.owner.kind == "user")
        return amended(await self.flow.current(session), anchor=session.anchor)  # expired: says so

    async def current(self, actor: Actor, request: rq.Current) -> Reply:
        session = await self.gate.find(actor)
        return amended(await self.flow.current(session), anchor=session.anchor)

    async def help(self, actor: Actor, request: rq.Help) -> Reply:
        return Reply(messages=(render.help_message(),))

    async def help_text(self, query: q.HelpText) -> Message:
        return render.help_message()

    async def anchor(self, query: q.QuizAnchor) -> Anchor | None:
        if query.session_id is not None:
            session = await self.gate.get(query.session_id)
        else:
            session = await self.gate.active(Owner.user(query.actor))
        return session.anchor if session is not None and session.anchor != Anchor() else None

    async def remember(self, query: q.RememberQuiz) -> None:
        """Remember where the quiz lives on the platform (a thread, the message of the item at `position`); it replaces what was.

        It never fails or refuses anything the learner did: it runs after the item was posted, so the
        learner's answer to it may reach another process and be stored first. A save that lost is
        made again on a fresh read while the quiz is still at `position`; once the quiz has moved past
        it, this item's message is no longer the one to remember (whoever posted the newer item
        remembers that one) and nothing is written. Should the saves keep losing, the anchor is left
        as it was, with a warning: the answers' saves always go first. The save may wait for the
        quiz's next one (`Repository.save_anchor`), which then follows the same rules.
        """
        if await self.gate.save_anchor_at(query.session_id, query.position, query.anchor):
            return  # stored on the quiz as this process holds it (SQLite's cache), no copy made
        for attempt in range(SAVE_TRIES):
            # Not under the quiz's lock: an answer to this item already on its way here (a code answer
            # grading) holds it, and its save is to carry this anchor (`Repository.save_anchor`).
            # First as this process last stored it (usually the answer's own save), then as read.
            if attempt == 0:
                session = await self.gate.recent(query.session_id, query.position)
            else:
                session = await self.gate.get(query.session_id)
            if session is None or (query.position is not None and session.position != query.position):
                if attempt == 0:
                    continue  # the guess may be behind what another process stored: read it
                return
            session.anchor = query.anchor
            try:
                await self.gate.save_anchor(session)
                return
            except SaveConflict:
                log.info("quiz %s changed while its anchor was saved (another process wrote it); reading it again", session.id)
        log.warning("quiz %s kept changing while its anchor was saved; the anchor is left as it was", query.session_id)

    async def run_code(self, actor: Actor, request: rq.RunCode) -> Reply:
        if self._runner is None:
            raise QuizError(_("Code can't be run here: the sandbox is not configured."))
        code = codetext.check(codetext.code_of(request.text), limit=self._runner.max_code_bytes)
        if self._work is None:
            if request.progress is not None:
                await request.progress(_(rq.RUNNING))
            outcome = await self._runner.run(RunRequest(code=code, owner=actor.key))
        else:
            # each run is its own item: a second run must not replace the first one's row
            async with self._work.running(actor, item=f"run:{uuid.uuid4().hex}", kind=RUN):
                if request.progress is not None:
                    await request.progress(_(rq.RUNNING))  # recorded: a front end may acknowledge it now
                outcome = await self._runner.run(RunRequest(code=code, owner=actor.key))
        tone = Tone.SUCCESS if outcome.status == "passed" else Tone.FAILURE
        parts = tuple(run_report(outcome, graded=False, code=code))
        return Reply(messages=(Message(kind="run", title=_("Run"), parts=parts, tone=tone),))
