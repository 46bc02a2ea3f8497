"""The answer path's storage side: write one `bot.core.answer.AnswerWrite` in one transaction.

A graded click's unit of work (the session save, the attempt, the review card, the practice day,
a daily-review card's failures, a member's answer to a daily post with the post's tally, and the
unfinished-work row it settles) is kept all or nothing. A unit with a session goes through the
session store's group commit (`sessions.py`), which calls `write_parts` inside its transaction; a
unit without one (a daily post's answer) is written here. Conditional updates guard it: the
member's answer must still have the attempts it was read with, the work row must still be there,
the attempt's key must be new; otherwise nothing is kept and it raises `Conflict` (`WorkTaken`).

The rules (FSRS, the streak) are the core's: storage applies the values the core computed, and
the core's `PracticeDay.apply` to the learner's row under its lock.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from sqlalchemy import and_, delete, insert, tuple_
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.core.daily.learner import Learner
from bot.core.ports import Conflict, WorkTaken

from . import tables as t
from .codec import attempt_row, review_row
from .daily_rows import (
    add_day,
    find_learner,
    insert_learner,
    put_failures,
    put_learner,
    put_member_answer,
    read_learner,
)
from .prepared import Prepared
from .work_tables import unfinished_work

if TYPE_CHECKING:
    from bot.core.answer import AnswerWrite

    from .base import Database

COUNTED_CAPACITY = 100_000  # learners remembered by `write_parts` before the memory starts again
WORK_TAKEN = "this answer's work was taken as abandoned (the learner was told to send it again)"
ANSWERED = "this answer was already recorded, or another answer of the member got there first"


class _Refused(Exception):
    """A condition of the unit failed: roll the transaction back, then raise the Conflict."""

    def __init__(self, conflict: Conflict) -> None:
        super().__init__(str(conflict))
        self.conflict = conflict


Counted = dict[tuple[str, str], tuple[str, date]]  # learner -> (zone, practice day) whose streak is stored


async def write_parts(
    c: AsyncConnection, unit: AnswerWrite, counted: Counted | None = None, guesses: Counted | None = None
) -> None:
    """Write the unit's practice day and leech state in the open transaction (no condition can fail).

    `counted` is a single process's memory (SQLite) of the learners whose day is stored already:
    an answer that only moves the streak, on a day already counted, then costs no statement.
    `guesses` (PostgreSQL) is told the same but never trusted: `one_statement` checks it in the database.
    """
    if unit.leech is not None and unit.attempt is not None:
        leech = unit.leech
        await put_failures(c, unit.attempt.platform, unit.attempt.user_id, (leech.pack, leech.question), leech.failures, leech.suspended)
    practice = unit.day
    if practice is None or _day_stored(unit, counted):
        return
    who = (practice.platform, practice.user_id)
    found = await find_learner(c, practice.platform, practice.user_id, lock=True)
    learner = found or Learner(practice.platform, practice.user_id)
    day, after = practice.apply(learner)
    # A first answer inserts the learner's row as it is after it (one statement, not insert, read, update).
    if found is not None or not await insert_learner(c, after):
        if found is None:  # another transaction made the row first: apply the answer to what it stored
            learner = await read_learner(c, practice.platform, practice.user_id, lock=True)
            day, after = practice.apply(learner)
        if after != learner:
            await put_learner(c, after)
    for memory in (counted, guesses):
        if memory is not None:
            remember(memory, who, (learner.zone, day))
    if practice.reviews or practice.new or practice.channel:
        await add_day(
            c, practice.platform, practice.user_id, day, reviews=practice.reviews, new=practice.new, channel=practice.channel
        )


def remember(memory: Counted, who: tuple[str, str], stored: tuple[str, date]) -> None:
    """Keep the learner's stored (zone, practice day); a full memory starts again."""
    if len(memory) >= COUNTED_CAPACITY and who not in memory:
        memory.clear()
    memory[who] = stored


def writes_nothing(unit: AnswerWrite, counted: Counted | None) -> bool:
    """Whether `write_parts` would run no statement for the unit (no leech state, and no day or one stored)."""
    return (unit.leech is None or unit.attempt is None) and (unit.day is None or _day_stored(unit, counted))


def _day_stored(unit: AnswerWrite, counted: Counted | None) -> bool:
    """Whether the answer only moves a streak on a practice day this process knows is stored."""
    practice = unit.day
    if practice is None or counted is None:
        return False
    known = counted.get((practice.platform, practice.user_id))
    return known is not None and not practice.counts and practice.day_in(known[0]) == known[1]


async def settle_items(c: AsyncConnection, units: list[AnswerWrite]) -> None:
    """Remove every process's unfinished-work rows for the items these stored answers end (`AnswerWrite.settles`).

    Runs after each unit's own row was settled: a row left by a process killed while grading the
    same delivery (a retry reached this one) must not tell the learner to send an answer again
    that is stored.
    """
    items = [(u.attempt.platform, u.attempt.user_id, u.settles) for u in units if u.settles is not None and u.attempt is not None]
    if not items:
        return
    w = unfinished_work.c
    if len(items) == 1:
        platform, user_id, item = items[0]
        await c.execute(delete(unfinished_work).where(and_(w.platform == platform, w.user_id == user_id, w.item == item)))
    else:
        await c.execute(delete(unfinished_work).where(tuple_(w.platform, w.user_id, w.item).in_(items)))


async def write_alone(db: Database, unit: AnswerWrite, upsert_review: Prepared, counted: Counted | None = None) -> None:
    """Write a unit without a session (a daily post's answer) in one transaction, or raise Conflict."""
    try:
        async with db.write() as c:
            if unit.tally is not None:
                row = unit.tally
                stored = await put_member_answer(
                    c, row.post_id, row.answer, previous_attempts=row.previous_attempts, key=row.key
                )
                if not stored:
                    raise _Refused(Conflict(ANSWERED))
            attempt = unit.attempt
            if attempt is not None and attempt.work is not None:
                settled = await c.execute(delete(unfinished_work).where(unfinished_work.c.id == attempt.work))
                if settled.rowcount != 1:
                    raise _Refused(WorkTaken(WORK_TAKEN))
            if attempt is not None:
                await c.execute(insert(t.attempts), [attempt_row(attempt)])
                await settle_items(c, [unit])
            if unit.card is not None:
                await upsert_review.run(c, [review_row(unit.card)])
            await write_parts(c, unit, counted)
    except _Refused as refused:
        raise refused.conflict from None
    except IntegrityError as exc:  # the member's first row, or the attempt's key, is stored already
        raise Conflict(ANSWERED) from exc
