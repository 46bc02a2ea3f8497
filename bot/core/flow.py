"""The quiz flow: open a session, apply each input to the current item, grade, move on, sum up.

Which items a new quiz asks is chosen in `starting.py` (`Starter`), which opens the session here;
a graded answer's unit of work is recorded in `answer.py`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any

from bot.core.i18n import N_, _, ngettext, number, pgettext

from . import actions as ax
from . import answer, render
from .catalogue import Catalogue
from .errors import BadSubmission, QuizError, SaveConflict
from .faults import FaultLog
from .gate import LATE_GRADE, Gate
from .items import (
    Changed,
    Context,
    Graded,
    Input,
    Make,
    NotAnAnswer,
    answered,
    kind_of,
    remade,
)
from .model import Actor, ItemState, Owner, Session, amended, new_session_id
from .packs import AnyQuestion, Pack
from .ports import Clock, CodeRunner, Conflict, Repository, WorkTaken
from .replies import Button, Message, Part, Reply, Text, Tone, cmd
from .requests import RUNNING
from .work import GRADE, Unfinished

Answers = answer.Answers
NEXT_NOT_SHOWN = N_("Your answer is saved. What comes next could not be shown just now: {current} shows it.")
ReviewParts = Callable[[Session, ItemState, answer.AnswerWrite], Awaitable[answer.AnswerWrite]]
Progress = Callable[[str], Awaitable[None]]  # told `RUNNING` once code's grading is recorded


class Flow:
    """Quizzes from the opened session to the summary; each change goes through the gate."""

    def __init__(
        self,
        *,
        repository: Repository,
        catalogue: Catalogue,
        gate: Gate,
        clock: Clock,
        runner: CodeRunner | None,
        work: Unfinished | None = None,
        answers: Answers | None = None,
        faults: FaultLog | None = None,
    ) -> None:
        self.answers = answers or Answers(log=repository, faults=faults)
        self.faults = faults or self.answers.faults
        # Daily practice adds the review's day counts and leech state to a review item's unit of work.
        self.review_parts: ReviewParts | None = None
        self._work = work
        self._settings = repository
        self._catalogue = catalogue
        self._gate = gate
        self._clock = clock
        self._runner = runner

    # ----------------------------------------------------------------- opening a session

    async def open(
        self,
        actor: Actor,
        owner: Owner,
        items: list[ItemState],
        filters: dict[str, Any],
        *,
        before: tuple[Message, ...] = (),
        replaced: str | None = None,
    ) -> Reply:
        """Open a session on `items` (stopping the owner's running one) and show its first item."""
        now = self._clock.now()
        messages: list[Message] = list(before)
        previous = await self._gate.active(owner)
        if previous is not None:
            previous.status = "stopped"
            previous.updated_at = now
            await self._gate.save(previous)
            note = replaced or _("Your previous quiz was stopped; a new one starts.")
            messages.append(Message(kind="notice", parts=(Text(note),)))
        session = Session(
            id=new_session_id(),
            owner=owner,
            started_by=actor.user_id,
            started_by_name=actor.mention,
            items=items,
            created_at=now,
            updated_at=now,
            filters=filters,
        )
        await self._gate.create(session)
        pack, question = await self.question(session.items[0])
        messages.append(render.item_message(session, 0, pack, question))
        return Reply(messages=tuple(messages), private=owner.kind == "user")

    # ----------------------------------------------------------------- a command's delivery

    async def commanded(self, actor: Actor, key: str) -> str | None:
        """The quiz a `/quiz skip` or `/quiz stop` delivered as `key` acted on already (a repeat), else None."""
        stored = await self._settings.get_setting(command_key(actor))
        session_id, _sep, seen = (stored or "").partition(" ")
        return session_id if seen == key else None

    async def command(self, actor: Actor, key: str, session_id: str) -> None:
        """Note, before it acts, that the command delivered as `key` is for `session_id` (`commanded` then knows a repeat)."""
        await self._settings.set_setting(command_key(actor), f"{session_id} {key}")

    # ----------------------------------------------------------------- the current item

    async def question(self, item: ItemState) -> tuple[Pack, AnyQuestion]:
        pack = await self._catalogue.pack(item.pack)
        question = pack.question(item.question) if pack else None
        if pack is None or question is None:
            raise QuizError(_("This question was removed from its pack. Use {skip} to move on.").format(skip=cmd("skip")))
        return pack, question

    async def current(self, session: Session) -> Reply:
        """The current item again, with working controls."""
        self._gate.require_active(session)
        item = session.current
        assert item is not None
        pack, question = await self.question(item)
        await self.made_again(session, item, question)
        return Reply(messages=(render.item_message(session, session.position, pack, question),))

    async def made_again(self, session: Session, item: ItemState, question: AnyQuestion) -> None:
        """Before it is shown, make an item again whose question its pack changed since it was made (`ItemState.seen`):
        the learner then answers what they see, not the version the quiz started with."""
        if remade(item, question):
            with suppress(QuizError):  # another write got there first: the first press then says the question changed
                await self._gate.save(session)

    def text_verb(self, question: AnyQuestion, text: str, *, code_only: bool) -> str:
        return kind_of(question).text_verb(question, text, code_only=code_only)

    async def on_item(
        self, actor: Actor, session: Session, action: ax.Action, values: list[str], key: str | None, progress: Progress | None = None
    ) -> Reply:
        """Apply one action to the session's current item (the session's lock is held)."""
        item = session.current
        assert item is not None
        verb = action.verb
        if verb == ax.STOP:  # needs no question: a quiz whose question left its pack stops too
            item.key = key or item.key  # a repeat of this delivery is then known (`Session.graded_by`)
            session.status = "stopped"
            session.updated_at = self._clock.now()
            await self._gate.save(session)
            return Reply(messages=(await self.summary(session, stopped=True),), private=session.owner.kind == "user")
        if verb == ax.SKIP:
            item.key = key or item.key  # a repeat of this click is then known (`Session.graded_by`)
            pack = await self._catalogue.pack(item.pack)
            if pack is None or pack.question(item.question) is None:  # removed: "use skip to move on"
                return await self._advance(session, item, None, None, skipped=True)
        pack, question = await self.question(item)
        kind = kind_of(question)
        if verb == ax.HINT:
            item.hinted = True
            session.updated_at = self._clock.now()
            await self._gate.save(session)
            text = question.hint or _("This question has no hint.")
            return Reply(messages=(Message(kind="notice", title=_("Hint"), parts=(Text(f"💡 {text}"),)),))
        if verb == ax.SKIP:
            return await self._advance(session, item, pack, question, skipped=True)
        if verb == ax.ANSWER:
            form = kind.form(question, Make(session.id, session.position))
            if form is None:
                raise BadSubmission(
                    _("This question is answered with its buttons or menus; {current} shows it again.").format(current=cmd("current"))
                )
            return Reply(form=form)
        given = Input(verb, action.argument, tuple(values))
        if not kind.sandboxed:  # nothing to wait for (`waiting` would yield None): no context manager per click
            return await self._answer(actor, session, item, pack, question, given, key, None)
        async with self.waiting(actor, question, f"{session.id}:{session.position}") as work:
            return await self._answer(actor, session, item, pack, question, given, key, work, progress)

    @asynccontextmanager
    async def waiting(self, actor: Actor, question: AnyQuestion, item_key: str) -> AsyncIterator[str | None]:
        """Record that the learner waits for the sandbox to grade (code items); yield the row's id, else None.

        Front ends acknowledge the answer once `progress` is told `RUNNING` (`running`), inside this
        block: a process killed after that leaves a row that tells the learner. The row stays if the
        block is cancelled (a shutdown gave up on it): see `bot.core.work`.
        """
        kind = kind_of(question)
        if self._work is None or not kind.sandboxed or self._runner is None:
            yield None
            return
        limit = kind.graded_run(question, "").time_s
        async with self._work.running(actor, item=item_key, kind=GRADE, title=render.short_title(question), limit_s=limit) as work:
            yield work

    async def _answer(
        self,
        actor: Actor,
        session: Session,
        item: ItemState,
        pack: Pack,
        question: AnyQuestion,
        given: Input,
        key: str | None,
        work: str | None,
        progress: Progress | None = None,
    ) -> Reply:
        """Grade or apply an answer to the current item and store the outcome (with `work`'s row settled)."""
        # the pack was updated while the item was on screen (its choices, its type): the press means nothing now
        outcome = await answered(question, item, given, Context(self._runner, actor.key, running(progress)))
        if isinstance(outcome, Changed):
            session.updated_at = self._clock.now()
            await self._gate.save(session)
            notes = (Text(f"⚠️ {outcome.note}"),) if outcome.note else ()
            return Reply(update=render.item_message(session, session.position, pack, question, feedback=notes))
        if isinstance(outcome, NotAnAnswer):
            message = Message(kind="feedback", parts=outcome.parts, tone=outcome.tone, session_id=session.id)
            return Reply(messages=(message,))
        return await self._graded(session, item, pack, question, outcome, key, work)

    # ----------------------------------------------------------------- grading and moving on

    async def _graded(
        self,
        session: Session,
        item: ItemState,
        pack: Pack,
        question: AnyQuestion,
        graded: Graded,
        key: str | None,
        work: str | None = None,
    ) -> Reply:
        now = self._clock.now()
        correct = graded.correct
        item.attempts += 1
        item.key = key or item.key  # a repeat of this delivery is then known (`Session.graded_by`)
        final = correct or item.attempts >= question.max_attempts()
        review_item = self.review_parts is not None and bool(session.filters.get("daily"))
        # graded in the sandbox: every process's row for the item ends with it (`AnswerWrite.settles`)
        settles = f"{session.id}:{session.position}" if self._work is not None and kind_of(question).sandboxed else None
        attempt, card = answer.graded(
            platform=session.owner.platform,
            scope=session.owner.scope,
            user_id=session.started_by,
            pack=pack.pack,
            question=question.id,
            topic=question.topic,
            points=question.points,
            text=graded.answer,
            correct=correct,
            hinted=item.hinted,
            card=item.card,
            at=now,
            mode="review" if review_item else "quiz",
            session_id=session.id,
            key=key,
            work=work,
            final=final,
            detail=graded.detail,
        )
        parts: list[Part] = [Text(_("✅ **Correct!**") if correct else _("❌ **Not quite.**")), *graded.report]
        parts.extend(Text(f) for f in graded.feedback)
        tone = Tone.SUCCESS if correct else Tone.FAILURE
        if not final:
            left = question.max_attempts() - item.attempts
            hint = f"💡 {question.hint}\n" if question.hint else ""
            item.hinted = item.hinted or bool(question.hint)
            parts.append(Text(hint + ngettext("{n} attempt left.", "{n} attempts left.", left).format(n=number(left))))
            session.updated_at = now
            day = answer.PracticeDay(attempt.platform, attempt.user_id, now)  # any graded answer counts the day
            await self.record(answer.AnswerWrite(session=session, attempt=attempt, day=day, settles=settles))
            update = render.item_message(session, session.position, pack, question, feedback=parts, tone=tone)
            return Reply(update=update, private=session.owner.kind == "user")
        parts.extend(render.closing(question, correct=correct))
        item.done, item.correct = True, correct
        item.card = None  # the review card this answer stores replaces it; the session's row need not carry it
        item.points = question.points if correct else 0
        day = answer.PracticeDay(attempt.platform, attempt.user_id, now)
        unit = answer.AnswerWrite(attempt=attempt, card=card, day=day, settles=settles)
        if review_item and self.review_parts is not None:
            unit = await self.review_parts(session, item, unit)
        return await self._advance(session, item, pack, question, unit=unit, feedback=tuple(parts), tone=tone)

    async def record(self, unit: answer.AnswerWrite) -> None:
        """Record a graded answer's unit of work (`bot.core.answer`); say why when it was refused."""
        try:
            await self.answers.record(unit)
        except WorkTaken as exc:  # not worth a retry: the learner was told this answer was lost
            raise QuizError(_(LATE_GRADE)) from exc
        except Conflict as exc:
            raise SaveConflict() from exc

    async def _advance(
        self,
        session: Session,
        item: ItemState,
        pack: Pack | None,
        question: AnyQuestion | None,
        *,
        skipped: bool = False,
        unit: answer.AnswerWrite | None = None,
        feedback: tuple[Part, ...] = (),
        tone: Tone = Tone.INFO,
    ) -> Reply:
        index = session.position
        if skipped:
            item.done, item.skipped = True, True
            parts: list[Part] = [Text(_("⏭️ Skipped."))]
            if question is not None:
                parts.extend(render.closing(question, correct=False))
            feedback = tuple(parts)
        session.position += 1
        session.updated_at = self._clock.now()
        if session.position >= len(session.items):
            session.status = "finished"
        if unit is not None:
            await self.record(amended(unit, session=session))
        else:
            await self._gate.save(session)
        messages: list[Message] = []
        update: Message | None = None
        if pack and question:
            update = render.item_message(session, index, pack, question, final=True, feedback=feedback, tone=tone)
        else:
            messages.append(Message(kind="feedback", parts=feedback, tone=tone, session_id=session.id))
        messages.append(await self._what_next(session))
        return Reply(messages=tuple(messages), update=update, private=session.owner.kind == "user")

    async def _what_next(self, session: Session) -> Message:
        """The next item, or the summary; the answer is stored already, so a failure here only says so."""
        try:
            if session.status == "finished":
                return await self.summary(session, stopped=False)
            nxt = session.current
            assert nxt is not None
            next_pack, next_question = await self.question(nxt)
            await self.made_again(session, nxt, next_question)
            return render.item_message(session, session.position, next_pack, next_question)
        except QuizError as exc:
            return Message(kind="notice", parts=(Text(str(exc)),), tone=Tone.WARNING)
        except Exception as exc:  # the answer's commit is done: log it, and show the feedback all the same
            self.faults.failure(exc, "showing what follows a stored answer")
            return Message(kind="notice", parts=(Text(_(NEXT_NOT_SHOWN).format(current=cmd("current"))),), tone=Tone.WARNING, session_id=session.id)

    async def summary(self, session: Session, *, stopped: bool) -> Message:
        questions = []
        for item in session.items:
            pack = await self._catalogue.pack(item.pack)
            questions.append((pack, pack.question(item.question) if pack else None))
        return render.summary_message(session, questions, stopped=stopped)


def running(progress: Progress | None) -> Callable[[], Awaitable[None]] | None:
    """What tells `progress` `RUNNING` as code goes to the sandbox (`Context.running`): never for a refused answer."""
    if progress is None:
        return None

    async def tell() -> None:
        await progress(_(RUNNING))

    return tell


def command_key(actor: Actor) -> str:
    """The setting that keeps the learner's last skip or stop command: `PLATFORM:...:USER_ID`, for their export."""
    return f"{actor.platform}:quiz-command:{actor.user_id}"


def running_prompt(session: Session, start_new: str) -> Message:
    """Ask before something replaces a running quiz: Resume it, or Start new (the action `start_new`)."""
    text = _(
        "You have a quiz running: question {n} of {total}. Resume it, or start the new one (the running quiz then stops)."
    ).format(n=number(session.position + 1), total=number(len(session.items)))
    new = Button(start_new, pgettext("button", "Start new"), role="restart")
    return Message(kind="notice", parts=(Text(text),), rows=((resume_button(session), new),), session_id=session.id)


def resume_button(session: Session) -> Button:
    """A button that shows a quiz's current item again."""
    return Button(ax.make(session.id, session.position, ax.CURRENT), pgettext("button", "Resume"), "primary", role="resume")



