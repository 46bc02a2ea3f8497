"""The daily commands and clicks as the quiz service dispatches them.

`DailyDesk` joins `DailyService` (the rules and their state) with the quiz parts: the personal
review runs as an ordinary quiz session (items render and grade as in a quiz; each graded item's
day count and leech state join its unit of work through `DailyService.review_parts`), and a click
on a channel's daily post is graded by the item's type module, then counted with
`DailyService.answer_post` (`answering.py`); a scored answer is stored as an attempt and a review
card like a quiz answer. Replies to a daily post are private.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from functools import partial

from bot.core import actions as ax
from bot.core import requests as rq
from bot.core.answer import AnswerWrite, PracticeDay, graded
from bot.core.catalogue import Catalogue
from bot.core.dispatch import NOT_OURS, Dispatcher
from bot.core.errors import BadSubmission, QuizError, StaleAction
from bot.core.flow import Flow, Progress, running
from bot.core.gate import LATE_GRADE, Gate
from bot.core.i18n import _, number, pgettext
from bot.core.items import Changed, Context, Input, Make, NotAnAnswer, codetext, kind_of
from bot.core.items import answered as apply_input
from bot.core.model import Actor, ItemState, Owner, Session
from bot.core.packs import AnyQuestion
from bot.core.ports import Clock, CodeRunner, Repository, WorkTaken
from bot.core.replies import Button, Fields, Message, Reply, Text, Tone, cmd

from . import actions as dx
from . import shown
from .answering import OpenPost, item_of
from .cards import LEECH_FAILURES
from .channel import DailyPost, MemberAnswer, Tally
from .errors import AlreadyAnswered
from .messages import answer_feedback, post_message, post_title
from .review_door import ReviewDoor
from .service import DailyService

DAILY_FILTER = "daily"  # a session's filters mark a daily review with this key
NEW_FILTER = "daily_new"  # the `pack/question` keys of the review's new items
LEECH_BUTTONS = 5  # reset buttons shown under stats at most
_NOT_ON_A_POST = {ax.SKIP, ax.STOP, ax.RESTART, ax.CURRENT}

PostNow = Callable[..., Awaitable[Reply]]  # `Scheduler.post_now(actor, channel_id=...)`


def _key(pack: str, question: str) -> str:
    return f"{pack}/{question}"


class DailyDesk:
    """Handle the daily requests, clicks on daily posts and the reminder's buttons."""

    def __init__(
        self,
        *,
        daily: DailyService,
        repository: Repository,
        catalogue: Catalogue,
        gate: Gate,
        clock: Clock,
        runner: CodeRunner | None,
        rng: random.Random,
        flow: Flow,
        post_now: PostNow | None = None,
    ) -> None:
        self.daily = daily
        self._flow = flow
        self._repo = repository
        self._leeches: set[tuple[str, str, str, str]] = set()  # answers that just made a leech, to say so once
        self._catalogue = catalogue
        self._gate = gate
        self._clock = clock
        self._runner = runner
        self._rng = rng
        self._post_now = post_now
        self._door = ReviewDoor(gate=gate, flow=flow, daily_filter=DAILY_FILTER)

    # ------------------------------------------------------------ typed commands

    def register(self, dispatcher: Dispatcher) -> None:
        """Register the daily commands with the dispatcher, like every feature's."""
        dispatcher.request(rq.DailyReview, self.start_review)
        dispatcher.request(rq.DailySet, self.set_schedule)
        dispatcher.request(rq.DailyShow, self.show_schedule)
        dispatcher.request(rq.DailyOff, self.turn_off)
        dispatcher.request(rq.DailyNow, self.post_now)
        dispatcher.request(rq.DailySettings, self.settings)
        dispatcher.request(rq.Remind, self.remind)
        dispatcher.request(rq.RemindOff, self.remind_off)

    @staticmethod
    def _channel(actor: Actor, request: object) -> str:
        named = getattr(request, "channel_id", None)
        channel = named or actor.channel_id
        if not channel:
            raise QuizError(_("Name the channel, as in `channel:#study`, or use the command in that channel."))
        return str(channel)

    async def set_schedule(self, actor: Actor, request: rq.DailySet) -> Reply:
        return await self.daily.set_schedule(
            actor,
            channel_id=self._channel(actor, request),
            time=request.time,
            timezone=request.timezone,
            pack=request.pack,
            topic=request.topic,
            difficulty=request.difficulty,
            reveal_after_hours=request.reveal_after_hours,
        )

    async def show_schedule(self, actor: Actor, request: rq.DailyShow) -> Reply:
        return await self.daily.show_schedule(actor, channel_id=request.channel_id)

    async def turn_off(self, actor: Actor, request: rq.DailyOff) -> Reply:
        return await self.daily.turn_off(actor, channel_id=self._channel(actor, request))

    async def remind(self, actor: Actor, request: rq.Remind) -> Reply:
        return await self.daily.remind(actor, time=request.time, timezone=request.timezone)

    async def remind_off(self, actor: Actor, request: rq.RemindOff) -> Reply:
        return await self.daily.remind_off(actor)

    async def start_review(self, actor: Actor, request: rq.DailyReview) -> Reply:
        return await self.review(actor)

    async def post_now(self, actor: Actor, request: rq.DailyNow) -> Reply:
        if self._post_now is None:
            raise QuizError(_("This bot process does not post daily questions."))
        return await self._post_now(actor, channel_id=self._channel(actor, request))

    async def settings(self, actor: Actor, request: rq.DailySettings) -> Reply:
        return await self.daily.settings(
            actor, reviews=request.reviews, new=request.new, timezone=request.timezone, packs=request.packs
        )

    # ------------------------------------------------------------ the personal review

    async def review(self, actor: Actor, *, key: str | None = None, replacing: str = "") -> Reply:
        """Start today's review, once: a running review is shown again, a running quiz asked about (`review_door`)."""
        return await self._door.enter(actor, partial(self._open_review, actor), key=key, replacing=replacing)

    async def _open_review(self, actor: Actor) -> Reply:
        """Open today's review as a quiz: due cards most overdue first, then new items."""
        queue, intro = await self.daily.review_intro(actor)
        if queue.empty:
            return intro
        items: list[ItemState] = []
        new_keys: list[str] = []
        for card in queue.reviews:
            items.append(ItemState(pack=card.pack, question=card.question, card=card.card))
        history = await self._repo.history(actor.platform, actor.user_id, sorted({p for p, _ in queue.new}))
        for pack_id, question_id in queue.new:
            seen = history.get((pack_id, question_id))
            items.append(ItemState(pack=pack_id, question=question_id, card=seen.card if seen else None))
            new_keys.append(_key(pack_id, question_id))
        kept: list[ItemState] = []
        for item in items:
            pack = await self._catalogue.pack(item.pack)
            question = pack.question(item.question) if pack is not None else None
            if pack is None or question is None:
                continue  # removed since: it simply leaves today's review
            kind_of(question).prepare(question, item, self._rng)
            kept.append(item)
        if not kept:
            return intro
        filters = {DAILY_FILTER: True, NEW_FILTER: new_keys, "count": len(kept)}
        reply = await self._flow.open(
            actor,
            Owner.user(actor),
            kept,
            filters,
            before=intro.messages,
            replaced=_("Your previous quiz was stopped; the review starts."),
        )
        return replace(reply, private=True)

    async def review_parts(self, session: Session, item: ItemState, unit: AnswerWrite) -> AnswerWrite:
        """Add a daily review item's day count and leech state to its unit of work (the flow records it)."""
        new = _key(item.pack, item.question) in (session.filters.get(NEW_FILTER) or [])
        actor_platform, user_id = session.owner.platform, session.started_by
        unit, leech = await self.daily.review_parts(actor_platform, user_id, (item.pack, item.question), unit, new=new)
        if leech:
            self._leeches.add((actor_platform, user_id, item.pack, item.question))
        return unit

    async def after_item(self, actor: Actor, session: Session, item: ItemState | None, reply: Reply) -> Reply:
        """Say under a daily review item's feedback when the answer made its card a leech."""
        if item is None or not session.filters.get(DAILY_FILTER) or not item.done or item.skipped:
            return reply
        marker = (actor.platform, actor.user_id, item.pack, item.question)
        if marker not in self._leeches:
            return reply
        self._leeches.discard(marker)
        reset = Button(dx.reset_leech(item.pack, item.question), pgettext("button", "Reset"), role="")
        note = Message(
            kind="notice",
            title=_("Leech"),
            tone=Tone.WARNING,
            parts=(
                Text(
                    _(
                        "`{item}` was failed {n} times: it leaves your daily review until you reset it (it shows in your stats)."
                    ).format(item=_key(item.pack, item.question), n=LEECH_FAILURES)
                ),
            ),
            rows=((reset,),),
        )
        return replace(reply, messages=(*reply.messages, note))

    # ------------------------------------------------------------ the daily post's controls

    async def owns(self, session_id: str) -> bool:
        """Say whether an action's session slot names a daily post (not a quiz session)."""
        return await self.daily.post(session_id) is not None

    async def on_post(
        self,
        actor: Actor,
        action: ax.Action,
        values: Sequence[str],
        *,
        key: str | None = None,
        progress: Progress | None = None,
    ) -> Reply:
        """Handle a member's click on the channel's daily post; every answer goes only to them.

        `key` is the platform's id of the interaction: the same one delivered twice is counted once.
        `progress` is told once a code answer's grading is recorded (`Flow.waiting`).
        """
        if action.verb in _NOT_ON_A_POST:
            raise QuizError(_("The channel's daily question has no Skip or Stop: answer it, or simply leave it."))
        if action.position != 0:
            raise StaleAction()
        try:
            return await self._on_post(actor, action, values, key, progress)
        except AlreadyAnswered as exc:
            if key is not None and exc.key == key and exc.correct is not None:
                # This very delivery was counted (a redelivery, or a reply that never showed): its grade again.
                scored = MemberAnswer(actor.user_id, actor.mention, done=True, correct=exc.correct)
                return Reply(messages=(answer_feedback(scored, attempts_left=0),), private=True)
            raise

    async def _on_post(
        self, actor: Actor, action: ax.Action, values: Sequence[str], key: str | None, progress: Progress | None
    ) -> Reply:
        opened = await self.daily.open_post(actor, action.session_id)
        post, question = opened.post, opened.question
        kind = kind_of(question)
        if action.verb == ax.HINT:
            return replace(await self.daily.hint_post(actor, post.id, opened), private=True)
        form = kind.form(question, Make(post.id, 0)) if action.verb == ax.ANSWER else None
        action, values, tags = shown.untagged(action, values)
        # pressed on the post as it was before its pack changed it (an Answer button: its type changed)
        if shown.stale(question, action.verb, tags, opened.mine) or (action.verb == ax.ANSWER and form is None):
            return shown.changed(post_message(post, opened.pack, question, Tally(post.answered, post.right)))
        if action.verb == ax.ANSWER:
            return Reply(form=form)
        async with self._flow.waiting(actor, question, f"{post.id}:0") as work:  # code: the learner waits for the sandbox
            return await self._answer_post(actor, opened, action, values, key, work, progress)

    async def _answer_post(
        self,
        actor: Actor,
        opened: OpenPost,
        action: ax.Action,
        values: Sequence[str],
        key: str | None,
        work: str | None = None,
        progress: Progress | None = None,
    ) -> Reply:
        post, question = opened.post, opened.question
        version = shown.post_version(question)
        item = item_of(post, opened.mine, version)
        before = set(item.picked)
        given = Input(action.verb, action.argument, tuple(values))
        outcome = await apply_input(question, item, given, Context(self._runner, actor.key, running(progress)))
        if isinstance(outcome, Changed) and outcome.note:  # a control the question's type (changed since) has not
            return shown.changed(post_message(post, opened.pack, question, Tally(post.answered, post.right)))
        if isinstance(outcome, Changed):
            picks = {**{-1 - i: 0 for i in before}, **{-1 - i: 1 for i in item.picked}}
            await self.daily.select(actor, post.id, shown.with_version({**item.selections, **picks}, version), opened, fresh=True)
            return Reply(private=True)  # the menu shows the pick; Check grades it
        if isinstance(outcome, NotAnAnswer):
            return Reply(messages=(Message(kind="feedback", parts=outcome.parts, tone=outcome.tone),), private=True)

        async def scored(answer: MemberAnswer) -> AnswerWrite:
            return await self._scored(actor, post, question, outcome.answer, answer, work, detail=outcome.detail)

        answered = await self.daily.answer_post(
            actor, post.id, correct=outcome.correct, detail=" ".join(outcome.feedback), key=key,
            record=self._record_post, scored=scored, opened=opened,
        )
        feedback = answered.reply.messages[0]
        return Reply(messages=(replace(feedback, parts=(*outcome.report, *feedback.parts)),), private=True)

    async def on_thread_text(
        self,
        actor: Actor,
        post_id: str,
        text: str,
        progress: Progress | None = None,
        *,
        key: str | None = None,
    ) -> Reply:
        """Grade a member's code block sent under the daily post (its thread, a reply) as if sent with the form.

        The same refusals as the form path come first (closed, already answered, a question answered
        with its controls); a short answer is the block's content, a code answer the whole message.
        """
        post, _pack, question, _mine = await self.daily.open_post(actor, post_id)
        form = kind_of(question).form(question, Make(post.id, 0))
        action = ax.parse(form.action) if form is not None else None
        if form is None or action is None:
            raise BadSubmission(_("This question is answered with its buttons or menus."))
        value = text if form.kind == "code" else codetext.code_of(text).strip()
        reply = await self.on_post(actor, action, (value,), key=key, progress=progress if form.kind == "code" else None)
        titled = tuple(
            replace(m, title=m.title or post_title(post)) if m.kind == "feedback" else m
            for m in reply.messages
        )
        return replace(reply, messages=titled)

    async def _record_post(self, unit: AnswerWrite) -> None:
        """Record a daily post's answer; a refused one (Conflict) is told apart by `DailyService.answer_post`."""
        try:
            await self._flow.answers.record(unit)
        except WorkTaken as exc:  # the learner was told the bot restarted: this grade is not counted
            raise QuizError(_(LATE_GRADE)) from exc

    async def _scored(
        self, actor: Actor, post: DailyPost, question: AnyQuestion, text: str, answer: MemberAnswer, work: str | None,
        *, detail: str = "",
    ) -> AnswerWrite:
        """The scored answer's attempt, card and practice day, recorded with the post's tally (`bot.core.answer`)."""
        now = self._clock.now()
        history = await self._repo.history(actor.platform, actor.user_id, [post.pack])
        seen = history.get((post.pack, post.question))
        attempt, card = graded(
            platform=actor.platform,
            scope=post.scope,
            user_id=actor.user_id,
            pack=post.pack,
            question=post.question,
            topic=question.topic,
            points=question.points,
            text=text,
            correct=answer.correct,
            hinted=answer.hinted,
            card=seen.card if seen else None,
            at=now,
            mode="daily",
            key=f"daily:{post.id}:{actor.user_id}",  # one scored answer per member and post, by the database
            work=work,
            detail=detail,
        )
        settles = f"{post.id}:0" if kind_of(question).sandboxed else None  # see `AnswerWrite.settles`
        day = PracticeDay(actor.platform, actor.user_id, now, channel=1)
        return AnswerWrite(attempt=attempt, card=card, day=day, settles=settles)

    # ------------------------------------------------------------ buttons of daily messages

    async def on_action(self, actor: Actor, action: dx.DailyAction, key: str | None = None) -> Reply:
        """The reminder's Start button (or Start new, naming the quiz it replaces), or a leech's Reset button."""
        if action.verb == dx.START_REVIEW:
            return await self.review(actor, key=key, replacing=action.argument)
        if action.argument.startswith(dx.DIGEST):  # a long item, named by its digest: one of the learner's leeches
            return await self.daily.reset_leech_by_digest(actor, action.argument.removeprefix(dx.DIGEST))
        pack, sep, question = action.argument.partition("/")
        if not sep or not pack or not question:
            raise QuizError(_(NOT_OURS))
        return await self.daily.reset_leech(actor, (pack, question))

    # ------------------------------------------------------------ stats

    async def stats(self, actor: Actor, user_id: str | None) -> Message:
        """The daily part of `/quiz stats`: streak, freezes, due, leeches, reminder, mastered per topic."""
        fields = await self.daily.stats(actor, user_id=user_id)
        mastered = await self.daily.mastered(actor, user_id=user_id)
        rows = tuple(
            (f"{pack} · {topic or _('(no topic)')}", _("{n} mastered").format(n=number(n))) for (pack, topic), n in sorted(mastered.items())
        )
        parts: list[Text | Fields] = [fields]
        parts.append(
            Fields(rows) if rows else Text(_("No item mastered yet (stable for 21 days); {daily} gets there.").format(daily=cmd("daily")))
        )
        buttons: tuple[Button, ...] = ()
        if user_id is None or user_id == actor.user_id:
            leeches = await self.daily.leeches(actor)
            buttons = tuple(
                Button(dx.reset_leech(p, q), pgettext("button", "Reset {item}").format(item=q)[:80]) for p, q in leeches[:LEECH_BUTTONS]
            )
        return Message(kind="stats", title=_("Daily practice"), parts=tuple(parts), rows=(buttons,) if buttons else ())

