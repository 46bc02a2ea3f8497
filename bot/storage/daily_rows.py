"""Daily practice's rows: how schedules, posts, answers and learners are read and written.

The statements a transaction of another store shares (the learner's row under its lock, the day's
counts, a member's answer to a post with the post's tally) take an open connection, so the answer
path (`answers.py`) writes them in its own transaction.

`Claims` is how the scheduler's stores (`daily_schedules`, `daily_reminders`) take a job: a row the
database makes unique, inserted in its own transaction. It also holds the reads and one-statement
writes those stores share: rows due (`_due`), all or the first of a query's rows, one change.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from datetime import UTC, date, datetime, time
from typing import Any, TypeVar

from sqlalchemy import and_, bindparam, delete, false, insert, or_, select, true, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.dml import Delete, Insert, Update
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.schema import Table
from sqlalchemy.sql.selectable import Select

from bot.core.daily.channel import DailyPost, MemberAnswer
from bot.core.daily.learner import Learner
from bot.core.daily.queue import Caps
from bot.core.daily.reminders import Reminder
from bot.core.daily.rotation import ItemKey
from bot.core.daily.schedule import Schedule
from bot.core.model import Streak

from . import daily_tables as d
from .base import Base

Platforms = Collection[str] | None  # the platforms a scheduler serves; None: every platform
T = TypeVar("T")


def _on(column: Any, platforms: Platforms) -> ColumnElement[bool]:
    """A condition keeping the rows of the platforms served (every row when `platforms` is None)."""
    return true() if platforms is None else column.in_(sorted(platforms))


def _due(table: Table, platforms: Platforms, *conditions: ColumnElement[bool]) -> Select[Any]:
    """The rows of `table` of the platforms served that meet every condition (a job's rows due)."""
    return select(table).where(and_(_on(table.c.platform, platforms), *conditions))


def _hhmm(text: str) -> time:
    hours, minutes = text.split(":")
    return time(int(hours), int(minutes))


def _schedule(row: Any) -> Schedule:
    return Schedule(
        platform=row.platform,
        scope=row.scope,
        channel_id=row.channel_id,
        at=_hhmm(row.at),
        zone=row.zone,
        packs=tuple(json.loads(row.packs)),
        topic=row.topic,
        difficulty=row.difficulty,
        reveal_after_hours=row.reveal_after_hours,
        set_by=row.set_by,
        paused=bool(row.paused),
        pause_reason=row.pause_reason,
        last_day=row.last_day,
        cycle=row.cycle,
        next_at=row.next_at,
    )


def _post(row: Mapping[str, Any]) -> DailyPost:
    """A post from its row's columns (`Row._mapping`, or a dict `Base._rows` read)."""
    return DailyPost(
        id=row["id"],
        platform=row["platform"],
        scope=row["scope"],
        channel_id=row["channel_id"],
        day=row["day"],
        pack=row["pack_id"],
        question=row["question_id"],
        posted_at=row["posted_at"],
        reveal_at=row["reveal_at"],
        status=row["status"],
        message_ref=row["message_ref"],
        revealed_at=row["revealed_at"],
        answered=row["answered"],
        right=row["right"],
    )


def _answer(row: Mapping[Any, Any]) -> MemberAnswer:
    return MemberAnswer(
        user_id=row["user_id"],
        name=row["name"],
        attempts=row["attempts"],
        hinted=bool(row["hinted"]),
        done=bool(row["done"]),
        correct=bool(row["correct"]),
        first_at=row["first_at"],
        done_at=row["done_at"],
        selections={int(k): int(v) for k, v in json.loads(row["selections"]).items()},
        last_key=row["last_key"],
    )


def _learner(row: Any) -> Learner:
    reminder = None
    if row.remind_at is not None:
        reminder = Reminder(
            at=_hhmm(row.remind_at),
            zone=row.remind_zone or row.zone,
            failures=row.remind_failures,
            stopped=bool(row.remind_stopped),
            last_day=row.remind_last_day,
            next_at=row.remind_next_at,
        )
    return Learner(
        platform=row.platform,
        user_id=row.user_id,
        zone=row.zone,
        caps=Caps(row.review_cap, row.new_cap),
        packs=tuple(json.loads(row.packs)),
        reminder=reminder,
        streak=Streak(
            current=row.streak_current,
            longest=row.streak_longest,
            freezes=row.streak_freezes,
            last_day=row.streak_last_day,
            frozen_days=row.streak_frozen_days,
        ),
    )


def learner_values(learner: Learner, now: datetime) -> dict[str, Any]:
    r = learner.reminder
    s = learner.streak
    return {
        "platform": learner.platform,
        "user_id": learner.user_id,
        "zone": learner.zone,
        "review_cap": learner.caps.reviews,
        "new_cap": learner.caps.new,
        "packs": json.dumps(list(learner.packs)),
        "remind_at": r.at.strftime("%H:%M") if r is not None else None,
        "remind_zone": r.zone if r is not None else None,
        "remind_failures": r.failures if r is not None else 0,
        "remind_stopped": r.stopped if r is not None else False,
        "remind_last_day": r.last_day if r is not None else None,
        "remind_next_at": r.next_at if r is not None and not r.stopped else None,
        "streak_current": s.current,
        "streak_longest": s.longest,
        "streak_freezes": s.freezes,
        "streak_last_day": s.last_day,
        "streak_frozen_days": s.frozen_days,
        "updated_at": now,
    }


# Built once: a learner's first answer runs these, and a statement built per call costs its cache key each time.
_L = d.daily_learners.c
_FIND_LEARNER = select(d.daily_learners).where(
    and_(_L.platform == bindparam("b_platform"), _L.user_id == bindparam("b_user_id"))
)
_FIND_LEARNER_LOCKED = _FIND_LEARNER.with_for_update()
_INSERT_LEARNER = {
    "sqlite": sqlite_insert(d.daily_learners).on_conflict_do_nothing(),
    "postgresql": pg_insert(d.daily_learners).on_conflict_do_nothing(),
}
_UPDATE_LEARNER = update(d.daily_learners).where(
    and_(_L.platform == bindparam("b_platform"), _L.user_id == bindparam("b_user_id"))
)
_D = d.daily_days.c


def _adding_day(dialect_insert: Any) -> Any:
    statement = dialect_insert(d.daily_days)
    added = {name: _D[name] + statement.excluded[name] for name in ("reviews", "new", "channel")}
    return statement.on_conflict_do_update(index_elements=["platform", "user_id", "day"], set_=added)


_ADD_DAY = {"sqlite": _adding_day(sqlite_insert), "postgresql": _adding_day(pg_insert)}
# A member's answer to a post: stored only while its attempts are still those read, not done, and
# not this very delivery again (a retry reaching another process changes nothing). The columns set
# are the parameters' own (`put_member_answer`).
_A = d.daily_answers.c
_INSERT_ANSWER = insert(d.daily_answers)
_UPDATE_ANSWER = update(d.daily_answers).where(
    and_(
        _A.post_id == bindparam("b_post_id"),
        _A.user_id == bindparam("b_user_id"),
        _A.attempts == bindparam("b_attempts"),
        _A.done == false(),
        or_(_A.last_key.is_(None), _A.last_key != bindparam("b_key")),
    )
)
_P = d.daily_posts.c
_TALLY = (
    update(d.daily_posts)
    .where(_P.id == bindparam("b_id"))
    .values(answered=_P.answered + 1, right=_P.right + bindparam("b_right"), tally_dirty=True)
)


async def find_learner(
    c: AsyncConnection, platform: str, user_id: str, *, lock: bool = False
) -> Learner | None:
    """Return the learner's row, or None when never stored; `lock` holds it (PostgreSQL) until commit."""
    query = _FIND_LEARNER_LOCKED if lock and c.dialect.name != "sqlite" else _FIND_LEARNER
    row = (await c.execute(query, {"b_platform": platform, "b_user_id": user_id})).first()
    return _learner(row) if row is not None else None


async def read_learner(c: AsyncConnection, platform: str, user_id: str, *, lock: bool = False) -> Learner:
    """Return the learner's row (defaults when never seen); `lock` holds it (PostgreSQL) until commit."""
    found = await find_learner(c, platform, user_id, lock=lock)
    if found is None and lock:
        # A first answer: make the row (another transaction may make it at once), then hold it.
        await insert_learner(c, Learner(platform, user_id))
        found = await find_learner(c, platform, user_id, lock=lock)
    return found or Learner(platform, user_id)


async def insert_learner(c: AsyncConnection, learner: Learner) -> bool:
    """Insert the learner's row unless one is stored (another transaction made it at once); say whether this did."""
    values = learner_values(learner, datetime.now(UTC))
    result = await c.execute(_INSERT_LEARNER[c.dialect.name], values)
    return bool(result.rowcount == 1)


async def put_learner(c: AsyncConnection, learner: Learner) -> None:
    """Store the learner's row."""
    # Update in place (never delete and insert): a transaction waiting on this row's lock
    # must find it again, not a gap.
    values = learner_values(learner, datetime.now(UTC))
    result = await c.execute(
        _UPDATE_LEARNER, {"b_platform": learner.platform, "b_user_id": learner.user_id, **values}
    )
    if result.rowcount == 0:
        await c.execute(insert(d.daily_learners).values(**values))


async def add_day(
    c: AsyncConnection, platform: str, user_id: str, day: date, *, reviews: int, new: int, channel: int
) -> None:
    """Add to the learner's counts of `day` (the row is made on the day's first answer)."""
    values = {"platform": platform, "user_id": user_id, "day": day, "reviews": reviews, "new": new, "channel": channel}
    await c.execute(_ADD_DAY[c.dialect.name], values)


async def put_failures(
    c: AsyncConnection, platform: str, user_id: str, item: ItemKey, failures: int, suspended: bool
) -> None:
    """Store a card's failures in the daily review and whether it is suspended (a leech)."""
    k = d.daily_cards.c
    await c.execute(
        delete(d.daily_cards).where(
            and_(k.platform == platform, k.user_id == user_id, k.pack_id == item[0], k.question_id == item[1])
        )
    )
    await c.execute(
        insert(d.daily_cards).values(
            platform=platform,
            user_id=user_id,
            pack_id=item[0],
            question_id=item[1],
            failures=failures,
            suspended=suspended,
        )
    )


async def put_member_answer(
    c: AsyncConnection, post_id: str, answer: MemberAnswer, *, previous_attempts: int | None, key: str | None
) -> bool:
    """Store the member's answer unless another click changed it first (False; IntegrityError for a first row).

    A scored answer adds to the post's tally and marks it for the scheduler's next tally edit.
    """
    values = {
        "name": answer.name[:100],
        "attempts": answer.attempts,
        "hinted": answer.hinted,
        "done": answer.done,
        "correct": answer.correct,
        "first_at": answer.first_at,
        "done_at": answer.done_at,
        "selections": json.dumps({str(k): v for k, v in answer.selections.items()}),
    }
    if key is not None:
        values["last_key"] = key[:200]
    if previous_attempts is None:
        await c.execute(_INSERT_ANSWER, {"post_id": post_id, "user_id": answer.user_id, **values})
    else:
        where = {"b_post_id": post_id, "b_user_id": answer.user_id, "b_attempts": previous_attempts, "b_key": key or ""}
        if (await c.execute(_UPDATE_ANSWER, {**where, **values})).rowcount != 1:
            return False
    if answer.done:
        await c.execute(_TALLY, {"b_id": post_id, "b_right": 1 if answer.correct else 0})
    return True


def _aware(value: Any) -> datetime:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    assert isinstance(value, datetime)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Claims(Base):
    """A store whose jobs are taken by claims the database makes unique (see `daily_schedules`)."""

    async def _claim(self, claim: Insert, move_on: Update, *, clear: Delete | None = None) -> bool:
        """Insert a claim the database makes unique and move its owner on, in one transaction; False if taken already.

        A day's post (`claim_post`) and a learner's reminder (`claim_reminder`): of several processes
        that find the same job due, the one whose insert succeeds runs it. `clear` first removes a
        claim that may be made again (a day's post that failed), in the same transaction.
        """
        try:
            async with self._write() as c:
                if clear is not None:
                    await c.execute(clear)
                await c.execute(claim)
                await c.execute(move_on)
        except IntegrityError:
            return False
        return True

    async def _all(self, query: Select[Any], row: Callable[[Any], T]) -> list[T]:
        """Read the query's rows, each turned into a `row`."""
        async with self._read() as c:
            return [row(r) for r in await c.execute(query)]

    async def _first(self, query: Select[Any], row: Callable[[Any], T]) -> T | None:
        """Read the query's first row turned into a `row`, or None when there is none."""
        async with self._read() as c:
            found = (await c.execute(query)).first()
        return row(found) if found is not None else None

    async def _change(self, statement: Update | Delete) -> int:
        """Run one update or delete in its own transaction; return how many rows it changed."""
        async with self._write() as c:
            return (await c.execute(statement)).rowcount
