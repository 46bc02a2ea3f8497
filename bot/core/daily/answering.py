"""Answering a channel's daily post: a member's clicks, hints, menu picks and graded attempts.

`PostAnswering` finds the post a control or a message names, refuses a closed or answered one,
and counts each graded attempt on the member's row and the post's tally (`answer_post`). The item
is graded by its type module and the scored answer built in `handlers.py`; the unit of work is
recorded in `bot.core.answer`. `DailyService` (`service.py`) hands these methods out as its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import NamedTuple

from bot.core.answer import AnswerWrite, PracticeDay, TallyRow
from bot.core.faults import FaultLog
from bot.core.i18n import _
from bot.core.model import Actor, ItemState
from bot.core.packs.models import AnyQuestion, Pack
from bot.core.ports import Clock, Conflict, WorkTaken
from bot.core.render import correct_answer_text
from bot.core.replies import Reply, notice

from .channel import DailyPost, MemberAnswer, apply_attempt, apply_hint, apply_selection
from .errors import AlreadyAnswered, AnswerCounted, BadSetting, QuestionClosed
from .messages import answer_feedback
from .ports import DailyStore, Packs
from .shown import VERSION_KEY, picks_version

MAX_ID = 100  # platform ids (channels, users) are far shorter; the columns hold 100
MAX_SELECTIONS = 25  # a question has at most 25 choices or blank options


@dataclass(frozen=True)
class ChannelAnswer:
    """A member's answer to the daily question, after one graded attempt."""

    reply: Reply  # private feedback for the member
    answer: MemberAnswer
    scored: bool  # this attempt scored it: store the attempt and the review card like a quiz answer


class OpenPost(NamedTuple):
    """A post open for the member's answer: its pack and question, and the member's answer so far (None: none yet)."""

    post: DailyPost
    pack: Pack
    question: AnyQuestion
    mine: MemberAnswer | None


Record = Callable[[AnswerWrite], Awaitable[None]]  # `Flow.record`: the unit of work, in one transaction
Scored = Callable[[MemberAnswer], Awaitable[AnswerWrite]]  # the attempt, card and day of a scored answer


class PostAnswering:
    """The daily question's answers: open the post, count attempts, hints and menu picks."""

    def __init__(self, *, store: DailyStore, packs: Packs, clock: Clock, wake: Callable[[], None], faults: FaultLog) -> None:
        self._faults = faults  # what fails after an answer's commit is logged, not raised
        self._store = store
        self._packs = packs
        self._clock = clock
        self._wake = wake  # tells this process's scheduler that a post's tally changed

    async def post(self, post_id: str) -> DailyPost | None:
        """Return the daily post a control names, or None when the id is not a daily post."""
        if not post_id or len(post_id) > 32:
            return None
        return await self._store.get_post(post_id)

    async def post_at(self, platform: str, message_ref: str, channel_id: str | None = None) -> DailyPost | None:
        """Return the daily post a platform message is (a thread's parent, a replied-to message), or None."""
        if not message_ref or len(message_ref) > MAX_ID or (channel_id is not None and len(channel_id) > MAX_ID):
            return None
        return await self._store.post_at(platform, message_ref, channel_id)

    async def open_post(self, actor: Actor, post_id: str) -> OpenPost:
        """Return the post, its question and the member's answer so far; raise QuestionClosed or AlreadyAnswered."""
        post = await self.post(post_id)
        if post is None:
            raise QuestionClosed("")
        pack = await self._packs.get_pack(post.pack)
        question = pack.question(post.question) if pack is not None else None
        if pack is None or question is None:
            raise QuestionClosed("")
        if post.closed(self._clock.now()):
            raise QuestionClosed(correct_answer_text(question))
        mine = await self._store.member_answer(post.id, actor.user_id)
        if mine is not None and mine.done:
            raise AlreadyAnswered(correct=mine.correct, key=mine.last_key)
        return OpenPost(post, pack, question, mine)

    async def answer_post(
        self,
        actor: Actor,
        post_id: str,
        *,
        correct: bool,
        detail: str = "",
        key: str | None = None,
        record: Record | None = None,
        scored: Scored | None = None,
        opened: OpenPost | None = None,
    ) -> ChannelAnswer:
        """Count one graded attempt of the member; `detail` is the grader's feedback line.

        The member's row, the post's tally, and for the attempt that scores it (`scored` builds the
        attempt, card and practice day) the rest of the answer are recorded by `record` in one
        transaction. `key` names the platform's delivery: the same delivery twice is refused.
        Without them (the scheduler's tests), the answer is written with its practice day only.
        `opened` is the post as the caller opened it for grading (`open_post`), not read again; the
        member's answer is (a hint may have been taken while a code answer was graded), and the
        post's reveal time is checked again.
        """
        record = record or self._packs.write_answer
        now = self._clock.now()
        if opened is None:
            opened = await self.open_post(actor, post_id)
            previous = opened.mine
        else:
            if opened.post.closed(now):
                raise QuestionClosed(correct_answer_text(opened.question))
            previous = await self._store.member_answer(opened.post.id, actor.user_id)
            if previous is not None and previous.done:
                raise AlreadyAnswered(correct=previous.correct, key=previous.last_key)
        post, question = opened.post, opened.question
        answer = apply_attempt(
            previous, user_id=actor.user_id, name=actor.mention, correct=correct,
            max_attempts=question.max_attempts(), at=now,
        )
        row = TallyRow(post.id, answer, previous.attempts if previous is not None else None, key)
        if not answer.done:  # a graded try with tries left counts the practice day, as a quiz's does
            unit = AnswerWrite(day=PracticeDay(actor.platform, actor.user_id, now))
        elif scored is not None:
            unit = await scored(answer)
        else:
            unit = AnswerWrite(day=PracticeDay(actor.platform, actor.user_id, now, channel=1))
        try:
            await record(replace(unit, tally=row))
        except WorkTaken:
            raise
        except Conflict:
            now_stored = await self._store.member_answer(post.id, actor.user_id)
            if now_stored is not None and now_stored.done:
                raise AlreadyAnswered(correct=now_stored.correct, key=now_stored.last_key) from None
            raise AnswerCounted() from None  # this very delivery was counted already, or another answer got there first
        if answer.done:
            with self._faults.after_commit("waking the scheduler for a daily post's tally"):
                self._wake()  # the post's tally changed: the scheduler edits it within TALLY_EVERY
        left = max(question.max_attempts() - answer.attempts, 0)
        feedback = answer_feedback(answer, attempts_left=left, detail=detail)
        return ChannelAnswer(Reply(messages=(feedback,)), answer, answer.done)

    async def hint_post(self, actor: Actor, post_id: str, opened: OpenPost | None = None) -> Reply:
        """Show the member the hint privately; a right answer afterwards rates Hard (`opened`: see `select`)."""
        post, _pack, question, previous = opened or await self.open_post(actor, post_id)
        answer = apply_hint(previous, user_id=actor.user_id, name=actor.mention, at=self._clock.now())
        await self._store.save_member_answer(
            post.id, answer, previous_attempts=previous.attempts if previous is not None else None
        )
        return notice(question.hint or _("There is no hint for this one."), title=_("Hint"))

    async def select(
        self, actor: Actor, post_id: str, selections: dict[int, int], opened: OpenPost | None = None, *, fresh: bool = False
    ) -> MemberAnswer:
        """Remember the member's menu picks on the post (a blank's option, select-all indices) for Check.

        `opened`: the post as the caller just opened it (`open_post`), not read again; the member's
        row is stored only if its attempts are still those read. `fresh`: `selections` are all the
        picks (those kept are replaced, not merged: picks made before the question changed go).
        """
        if len(selections) > MAX_SELECTIONS + (VERSION_KEY in selections):
            raise BadSetting(_("Too many selections."))
        post, _pack, _question, previous = opened or await self.open_post(actor, post_id)
        base = replace(previous, selections={}) if fresh and previous is not None else previous
        answer = apply_selection(
            base, user_id=actor.user_id, name=actor.mention, selections=selections, at=self._clock.now()
        )
        await self._store.save_member_answer(
            post.id, answer, previous_attempts=previous.attempts if previous is not None else None
        )
        return answer

    async def member_answer(self, post_id: str, user_id: str) -> MemberAnswer | None:
        """Return the member's answer so far (attempts, hint, menu picks), or None."""
        return await self._store.member_answer(post_id, user_id)


def item_of(post: DailyPost, mine: MemberAnswer | None, version: str = "") -> ItemState:
    """Dress the member's answer so far as the item state the type module grades.

    A member's menu picks are kept in `MemberAnswer.selections`: a blank's pick under its number
    (1, 2, ...), a select-all pick of shown choice i under the key -1 - i (1 picked, 0 not), and
    the question's digest they were made under (`shown.VERSION_KEY`): picks made under another
    `version` than the question's now are not kept.
    """
    picks = mine.selections if mine is not None and picks_version(mine) in (None, version) else {}
    picks = {k: v for k, v in picks.items() if k != VERSION_KEY}
    return ItemState(
        pack=post.pack,
        question=post.question,
        attempts=mine.attempts if mine is not None else 0,
        hinted=mine.hinted if mine is not None else False,
        selections={k: v for k, v in picks.items() if k >= 0},
        picked=sorted(-1 - k for k, v in picks.items() if k < 0 and v),
    )
