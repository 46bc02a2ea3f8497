"""Where an answer is recorded: every graded answer of every mode goes through this module.

A quiz item (`bot.core.flow`), a click on a channel's daily post (`bot.core.daily.handlers`), the
daily review (a quiz session) and a race round's answers (`bot.core.race.rounds`) all call
`graded()`: the only place an `Attempt` is built and the learner's FSRS review card is moved.

What one click changes is one `AnswerWrite`, a unit of work: the session save, the attempt, the
card, the practice day (streak and day counts), the member's row of a daily post and its tally,
and the unfinished-work row the answer settles. Storage writes all of it in one transaction or
nothing (`AnswerLog.write_answer`, one repository method): a conditional update that changes no row (the session or the daily
answer moved on, the work row was taken, the delivery was stored already) aborts it with
`Conflict`. `Answers.record` writes it and counts it (`quizbot_answers_total`).

Streak and mastered are defined once, here and in `bot.core.progress`: every card, picture,
leaderboard and summary reads them from there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import date, datetime
from typing import TYPE_CHECKING, Literal, Protocol
from zoneinfo import ZoneInfo

from .faults import FaultLog
from .model import Attempt, Session
from .progress import practice_day, record_day
from .record import record
from .review import Review, review

if TYPE_CHECKING:
    from .daily.channel import MemberAnswer
    from .daily.learner import Learner

Mode = Literal["quiz", "daily", "race", "review"]
MAX_ANSWER_CHARS = 4000


def graded(
    *,
    platform: str,
    scope: str,
    user_id: str,
    pack: str,
    question: str,
    topic: str | None,
    points: int,
    text: str,
    correct: bool,
    hinted: bool,
    card: str | None,
    at: datetime,
    mode: Mode,
    session_id: str | None = None,
    key: str | None = None,
    work: str | None = None,
    final: bool = True,
    detail: str | None = None,
) -> tuple[Attempt, Review | None]:
    """Return the attempt of one graded answer and, when it ends the item (`final`), the moved card.

    `points` are the question's points (a race passes its own, already scored); a wrong answer
    scores none. `card` is the learner's card before this answer (None: never seen). `detail` is what
    the grade said, a line each (a code answer's failing tests), kept for the organiser's report.
    """
    attempt = Attempt(
        platform=platform,
        scope=scope,
        user_id=user_id,
        pack=pack,
        question=question,
        topic=topic,
        answer=text[:MAX_ANSWER_CHARS],
        correct=correct,
        points=points if correct else 0,
        at=at,
        session_id=session_id,
        key=key,
        work=work,
        mode=mode,
        detail=detail[:MAX_ANSWER_CHARS] if detail else None,
    )
    if not final:
        return attempt, None
    return attempt, card_after(attempt, card, hinted=hinted)


def card_after(attempt: Attempt, card: str | None, *, hinted: bool = False) -> Review:
    """Return the learner's FSRS card moved by the attempt (`card`: the card before, None if never seen)."""
    card_json, due = review(card, correct=attempt.correct, hinted=hinted, at=attempt.at)
    return Review(attempt.platform, attempt.user_id, attempt.pack, attempt.question, card_json, due, attempt.correct)


@record
class PracticeDay:
    """A day of practice for the learner: counts for the daily caps, and the streak moved.

    Storage applies it to the learner's row under its lock (`apply`), so two answers at once
    cannot both count the day as new; the rule itself stays here.
    """

    platform: str
    user_id: str
    at: datetime
    reviews: int = 0
    new: int = 0
    channel: int = 0

    @property
    def counts(self) -> bool:
        """Whether it adds to the day's counts (a review or the channel's question), not only the streak."""
        return bool(self.reviews or self.new or self.channel)

    def day_in(self, zone: str) -> date:
        """Return the practice day of this answer for a learner in `zone`."""
        return practice_day(self.at, ZoneInfo(zone))

    def apply(self, learner: Learner) -> tuple[date, Learner]:
        """Return the learner's practice day for this answer and the learner with the streak moved."""
        day = practice_day(self.at, learner.tz)
        return day, replace(learner, streak=record_day(learner.streak, day))


@record
class TallyRow:
    """A member's answer to a daily post after this attempt; a scored one counts in the post's tally."""

    post_id: str
    answer: MemberAnswer
    previous_attempts: int | None  # None: the member's first row; else the row must still have these
    key: str | None = None  # the platform's delivery: the same one twice changes nothing the second time


@record
class Leech:
    """A daily-review card's failures, and whether it left the review."""

    pack: str
    question: str
    failures: int
    suspended: bool


@record
class AnswerWrite:
    """Everything one graded click changes, written in one transaction or not at all."""

    attempt: Attempt | None = None
    card: Review | None = None
    day: PracticeDay | None = None
    tally: TallyRow | None = None
    leech: Leech | None = None
    session: Session | None = None  # saved on condition it still has its version; raised by one
    # The item's unfinished-work key ("<session>:<position>"): the rows any process holds for it
    # end with this answer (one killed while grading the same delivery must not say "send it again").
    settles: str | None = None


class AnswerLog(Protocol):
    """Storage's side: write an `AnswerWrite` in one transaction (bot.storage implements it)."""

    async def write_answer(self, unit: AnswerWrite) -> None:
        """Write every part or nothing; raise Conflict (or WorkTaken) when a condition fails."""
        ...


Counted = Callable[[Attempt], None]


class Answers:
    """Record graded answers: write the unit of work, then count it."""

    def __init__(self, *, log: AnswerLog, counted: Counted | None = None, faults: FaultLog | None = None) -> None:
        self._log = log
        self._counted = counted
        self.faults = faults or FaultLog()  # what fails after an answer's commit is logged here, not raised

    def count_with(self, counted: Counted) -> None:
        """Count every recorded attempt with `counted` (the metrics' `answers_total`)."""
        self._counted = counted

    async def record(self, unit: AnswerWrite) -> None:
        """Write the unit in one transaction; once it is stored, count its attempt."""
        await self._log.write_answer(unit)
        if unit.attempt is not None:
            self.counted(unit.attempt)

    def counted(self, attempt: Attempt) -> None:
        """Count an attempt stored by another path's transaction (a race round's close)."""
        if self._counted is not None:
            try:
                self._counted(attempt)
            except Exception as exc:  # stored already: a broken counter must not fail the answer
                self.faults.failure(exc, "counting an answer")
