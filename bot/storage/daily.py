"""Daily practice in the database: schedules, posts and their claims, answers, learners, reminders.

Every job the scheduler runs is taken by a claim that the database makes unique: a post is a
row unique per channel and local day, inserted in the transaction that moves the schedule on;
a reminder is a row unique per learner and local day. Whichever process inserts it runs the job;
the others get an IntegrityError and move on.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import and_, delete, false, func, insert, or_, select, true, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnElement

from bot.core.daily.channel import DailyPost, MemberAnswer
from bot.core.daily.learner import Learner
from bot.core.daily.queue import Caps, DayCount, DueCard
from bot.core.daily.reminders import Reminder
from bot.core.daily.rotation import ItemKey
from bot.core.daily.schedule import Schedule
from bot.core.daily.streak import Streak, record_day

from . import daily_tables as d
from . import tables as t
from .base import Base, HasDatabase

Platforms = Collection[str] | None  # the platforms a scheduler serves; None: every platform


def _on(column: Any, platforms: Platforms) -> ColumnElement[bool]:
    """A condition keeping the rows of the platforms served (every row when `platforms` is None)."""
    return true() if platforms is None else column.in_(sorted(platforms))


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


def _post(row: Any) -> DailyPost:
    return DailyPost(
        id=row.id,
        platform=row.platform,
        scope=row.scope,
        channel_id=row.channel_id,
        day=row.day,
        pack=row.pack_id,
        question=row.question_id,
        posted_at=row.posted_at,
        reveal_at=row.reveal_at,
        status=row.status,
        message_ref=row.message_ref,
        revealed_at=row.revealed_at,
        answered=row.answered,
        right=row.right,
    )


def _answer(row: Any) -> MemberAnswer:
    return MemberAnswer(
        user_id=row.user_id,
        name=row.name,
        attempts=row.attempts,
        hinted=bool(row.hinted),
        done=bool(row.done),
        correct=bool(row.correct),
        first_at=row.first_at,
        done_at=row.done_at,
        selections={int(k): int(v) for k, v in json.loads(row.selections).items()},
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


def _learner_values(learner: Learner, now: datetime) -> dict[str, Any]:
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


class DailyRepository(Base):
    """Implements `bot.core.daily.ports.DailyStore`, and the claims the scheduler takes."""

    @classmethod
    def beside(cls, repository: HasDatabase) -> DailyRepository:
        """Return a daily repository on the same engine and SQLite write queue as `repository`."""
        # One queue of writers per SQLite file: a second one would make writers wait in the driver.
        return cls(repository.db.engine, write_lock=repository.db.write_lock)

    # ------------------------------------------------------------ schedules

    async def save_schedule(self, schedule: Schedule) -> None:
        s = d.daily_schedules.c
        values = {
            "platform": schedule.platform,
            "channel_id": schedule.channel_id,
            "scope": schedule.scope,
            "at": schedule.at_text,
            "zone": schedule.zone,
            "packs": json.dumps(list(schedule.packs)),
            "topic": schedule.topic,
            "difficulty": schedule.difficulty,
            "reveal_after_hours": schedule.reveal_after_hours,
            "set_by": schedule.set_by,
            "paused": schedule.paused,
            "pause_reason": schedule.pause_reason,
            "last_day": schedule.last_day,
            "cycle": schedule.cycle,
            "next_at": schedule.next_at,
            "updated_at": datetime.now(UTC),
        }
        async with self._write() as c:
            await c.execute(
                delete(d.daily_schedules).where(
                    and_(s.platform == schedule.platform, s.channel_id == schedule.channel_id)
                )
            )
            await c.execute(insert(d.daily_schedules).values(**values))

    async def get_schedule(self, platform: str, channel_id: str) -> Schedule | None:
        s = d.daily_schedules.c
        async with self._engine.connect() as c:
            row = (
                await c.execute(select(d.daily_schedules).where(and_(s.platform == platform, s.channel_id == channel_id)))
            ).first()
        return _schedule(row) if row is not None else None

    async def list_schedules(self, platform: str, scope: str) -> list[Schedule]:
        s = d.daily_schedules.c
        async with self._engine.connect() as c:
            rows = await c.execute(
                select(d.daily_schedules).where(and_(s.platform == platform, s.scope == scope)).order_by(s.channel_id)
            )
            return [_schedule(r) for r in rows]

    async def delete_schedule(self, platform: str, channel_id: str) -> bool:
        s = d.daily_schedules.c
        async with self._write() as c:
            result = await c.execute(
                delete(d.daily_schedules).where(and_(s.platform == platform, s.channel_id == channel_id))
            )
        return bool(result.rowcount)

    async def due_schedules(self, now: datetime, limit: int = 100, *, platforms: Platforms = None) -> list[Schedule]:
        """Return schedules of `platforms` that are not paused and whose next look is due."""
        s = d.daily_schedules.c
        async with self._engine.connect() as c:
            rows = await c.execute(
                select(d.daily_schedules)
                .where(and_(_on(s.platform, platforms), s.paused == false(), s.next_at.is_not(None), s.next_at <= now))
                .order_by(s.next_at)
                .limit(limit)
            )
            return [_schedule(r) for r in rows]

    async def advance_schedule(self, schedule: Schedule, *, next_at: datetime) -> None:
        """Move the schedule's next look on, when another process claimed today's post or none is due."""
        s = d.daily_schedules.c
        async with self._write() as c:
            await c.execute(
                update(d.daily_schedules)
                .where(and_(s.platform == schedule.platform, s.channel_id == schedule.channel_id))
                .values(next_at=next_at)
            )

    async def pause_schedule(self, schedule: Schedule, reason: str) -> bool:
        """Pause the schedule; return True when this call paused it (so the admin is told once)."""
        s = d.daily_schedules.c
        async with self._write() as c:
            result = await c.execute(
                update(d.daily_schedules)
                .where(and_(s.platform == schedule.platform, s.channel_id == schedule.channel_id, s.paused == false()))
                .values(paused=True, pause_reason=reason[:500], updated_at=datetime.now(UTC))
            )
        return result.rowcount == 1

    async def candidates(self, schedule: Schedule) -> list[ItemKey]:
        """Return the items a schedule draws from: its packs (or every enabled pack), topic, difficulty."""
        q = t.questions.c
        conditions: list[ColumnElement[bool]] = []
        async with self._engine.connect() as c:
            if schedule.packs:
                packs = list(schedule.packs)
            else:
                ps = t.pack_settings.c
                disabled = {
                    r.pack_id
                    for r in await c.execute(
                        select(ps.pack_id).where(and_(ps.scope == schedule.scope, ps.enabled == false()))
                    )
                }
                packs = [r.id for r in await c.execute(select(t.packs.c.id)) if r.id not in disabled]
            conditions.append(q.pack_id.in_(packs))
            if schedule.topic:
                conditions.append(q.topic == schedule.topic)
            if schedule.difficulty:
                conditions.append(q.difficulty == schedule.difficulty)
            rows = await c.execute(select(q.pack_id, q.question_id).where(and_(*conditions)))
            return [(r.pack_id, r.question_id) for r in rows]

    async def posted_in_cycle(self, schedule: Schedule, cycle: int) -> list[ItemKey]:
        p = d.daily_posts.c
        async with self._engine.connect() as c:
            rows = await c.execute(
                select(p.pack_id, p.question_id).where(
                    and_(p.platform == schedule.platform, p.channel_id == schedule.channel_id, p.cycle == cycle)
                )
            )
            return [(r.pack_id, r.question_id) for r in rows]

    # ------------------------------------------------------------ posts

    async def claim_post(self, schedule: Schedule, post: DailyPost, *, cycle: int, next_at: datetime) -> bool:
        """Record the day's post and move the schedule on, in one transaction; False if taken already."""
        s = d.daily_schedules.c
        try:
            async with self._write() as c:
                await c.execute(
                    insert(d.daily_posts).values(
                        id=post.id,
                        platform=post.platform,
                        scope=post.scope,
                        channel_id=post.channel_id,
                        day=post.day,
                        pack_id=post.pack,
                        question_id=post.question,
                        cycle=cycle,
                        status="claimed",
                        message_ref=None,
                        posted_at=post.posted_at,
                        reveal_at=post.reveal_at,
                        revealed_at=None,
                        answered=0,
                        right=0,
                        tally_dirty=False,
                        tally_edited_at=None,
                    )
                )
                await c.execute(
                    update(d.daily_schedules)
                    .where(
                        and_(
                            s.platform == schedule.platform,
                            s.channel_id == schedule.channel_id,
                            or_(s.last_day.is_(None), s.last_day < post.day),  # days only move forward
                        )
                    )
                    .values(last_day=post.day, cycle=cycle, next_at=next_at)
                )
        except IntegrityError:
            return False
        return True

    async def mark_post(self, post_id: str, *, status: str, message_ref: str | None = None) -> None:
        p = d.daily_posts.c
        async with self._write() as c:
            await c.execute(update(d.daily_posts).where(p.id == post_id).values(status=status, message_ref=message_ref))

    async def get_post(self, post_id: str) -> DailyPost | None:
        async with self._engine.connect() as c:
            row = (await c.execute(select(d.daily_posts).where(d.daily_posts.c.id == post_id))).first()
        return _post(row) if row is not None else None

    async def post_at(self, platform: str, message_ref: str, channel_id: str | None = None) -> DailyPost | None:
        """Return the post whose platform message is `message_ref` (in `channel_id`, when given), or None."""
        p = d.daily_posts.c
        where = [p.platform == platform, p.message_ref == message_ref, p.status == "posted"]
        if channel_id is not None:
            where.append(p.channel_id == channel_id)
        async with self._engine.connect() as c:
            row = (await c.execute(select(d.daily_posts).where(and_(*where)).order_by(p.day.desc()).limit(1))).first()
        return _post(row) if row is not None else None

    async def posts(self, platform: str, channel_id: str) -> list[DailyPost]:
        """Return the channel's posts, oldest first."""
        p = d.daily_posts.c
        async with self._engine.connect() as c:
            rows = await c.execute(
                select(d.daily_posts).where(and_(p.platform == platform, p.channel_id == channel_id)).order_by(p.day)
            )
            return [_post(r) for r in rows]

    async def open_posts(self, platform: str, channel_id: str) -> list[DailyPost]:
        """Return the channel's posted, unrevealed posts (revealed before a new one goes up)."""
        p = d.daily_posts.c
        async with self._engine.connect() as c:
            rows = await c.execute(
                select(d.daily_posts).where(
                    and_(p.platform == platform, p.channel_id == channel_id, p.status == "posted", p.revealed_at.is_(None))
                )
            )
            return [_post(r) for r in rows]

    async def due_reveals(self, now: datetime, limit: int = 100, *, platforms: Platforms = None) -> list[DailyPost]:
        p = d.daily_posts.c
        async with self._engine.connect() as c:
            rows = await c.execute(
                select(d.daily_posts)
                .where(
                    and_(_on(p.platform, platforms), p.status == "posted", p.revealed_at.is_(None), p.reveal_at <= now)
                )
                .order_by(p.reveal_at)
                .limit(limit)
            )
            return [_post(r) for r in rows]

    async def claim_reveal(self, post_id: str, now: datetime) -> bool:
        """Mark the post revealed; True for the one caller that did it."""
        p = d.daily_posts.c
        async with self._write() as c:
            result = await c.execute(
                update(d.daily_posts).where(and_(p.id == post_id, p.revealed_at.is_(None))).values(revealed_at=now)
            )
        return result.rowcount == 1

    async def due_tallies(
        self, now: datetime, every: timedelta, limit: int = 100, *, platforms: Platforms = None
    ) -> list[DailyPost]:
        p = d.daily_posts.c
        async with self._engine.connect() as c:
            rows = await c.execute(
                select(d.daily_posts)
                .where(
                    and_(
                        _on(p.platform, platforms),
                        p.tally_dirty == true(),
                        p.status == "posted",
                        p.revealed_at.is_(None),
                        or_(p.tally_edited_at.is_(None), p.tally_edited_at <= now - every),
                    )
                )
                .limit(limit)
            )
            return [_post(r) for r in rows]

    async def claim_tally(self, post_id: str, now: datetime, every: timedelta) -> DailyPost | None:
        """Take the post's pending tally edit; return the post with its current counts, or None."""
        p = d.daily_posts.c
        async with self._write() as c:
            result = await c.execute(
                update(d.daily_posts)
                .where(
                    and_(
                        p.id == post_id,
                        p.tally_dirty == true(),
                        or_(p.tally_edited_at.is_(None), p.tally_edited_at <= now - every),
                    )
                )
                .values(tally_dirty=False, tally_edited_at=now)
            )
            if result.rowcount != 1:
                return None
            row = (await c.execute(select(d.daily_posts).where(p.id == post_id))).one()
        return _post(row)

    # ------------------------------------------------------------ member answers

    async def member_answer(self, post_id: str, user_id: str) -> MemberAnswer | None:
        a = d.daily_answers.c
        async with self._engine.connect() as c:
            row = (
                await c.execute(select(d.daily_answers).where(and_(a.post_id == post_id, a.user_id == user_id)))
            ).first()
        return _answer(row) if row is not None else None

    async def member_answers(self, post_id: str) -> list[MemberAnswer]:
        a = d.daily_answers.c
        async with self._engine.connect() as c:
            rows = await c.execute(select(d.daily_answers).where(a.post_id == post_id))
            return [_answer(r) for r in rows]

    async def save_member_answer(
        self, post_id: str, answer: MemberAnswer, *, previous_attempts: int | None, key: str | None = None
    ) -> bool:
        a = d.daily_answers.c
        p = d.daily_posts.c
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
        try:
            async with self._write() as c:
                if previous_attempts is None:
                    await c.execute(insert(d.daily_answers).values(post_id=post_id, user_id=answer.user_id, **values))
                else:
                    result = await c.execute(
                        update(d.daily_answers)
                        .where(
                            and_(
                                a.post_id == post_id,
                                a.user_id == answer.user_id,
                                a.attempts == previous_attempts,
                                a.done == false(),
                                # the same delivery again (a retry reaching another process) changes nothing
                                or_(a.last_key.is_(None), a.last_key != (key or "")),
                            )
                        )
                        .values(**values)
                    )
                    if result.rowcount != 1:
                        return False
                if answer.done:
                    await c.execute(
                        update(d.daily_posts)
                        .where(p.id == post_id)
                        .values(
                            answered=p.answered + 1,
                            right=p.right + (1 if answer.correct else 0),
                            tally_dirty=True,
                        )
                    )
        except IntegrityError:
            return False
        return True

    # ------------------------------------------------------------ learners

    async def get_learner(self, platform: str, user_id: str) -> Learner:
        async with self._engine.connect() as c:
            return await self._learner(c, platform, user_id)

    async def _learner(self, c: AsyncConnection, platform: str, user_id: str, *, lock: bool = False) -> Learner:
        l_ = d.daily_learners.c
        query = select(d.daily_learners).where(and_(l_.platform == platform, l_.user_id == user_id))
        if lock and not self._sqlite:
            query = query.with_for_update()
        row = (await c.execute(query)).first()
        return _learner(row) if row is not None else Learner(platform, user_id)

    async def save_learner(self, learner: Learner) -> None:
        async with self._write() as c:
            await self._put_learner(c, learner)

    async def _put_learner(self, c: AsyncConnection, learner: Learner) -> None:
        # Update in place (never delete and insert): a transaction waiting on this row's lock
        # must find it again, not a gap.
        l_ = d.daily_learners.c
        values = _learner_values(learner, datetime.now(UTC))
        result = await c.execute(
            update(d.daily_learners)
            .where(and_(l_.platform == learner.platform, l_.user_id == learner.user_id))
            .values(**values)
        )
        if result.rowcount == 0:
            await c.execute(insert(d.daily_learners).values(**values))

    async def day_count(self, platform: str, user_id: str, day: date) -> DayCount:
        y = d.daily_days.c
        async with self._engine.connect() as c:
            row = (
                await c.execute(
                    select(y.reviews, y.new, y.channel).where(
                        and_(y.platform == platform, y.user_id == user_id, y.day == day)
                    )
                )
            ).first()
        return DayCount(row.reviews, row.new, row.channel) if row is not None else DayCount()

    async def record_activity(
        self, learner: Learner, day: date, *, reviews: int = 0, new: int = 0, channel: int = 0
    ) -> Learner:
        y = d.daily_days.c
        for attempt in range(3):
            try:
                async with self._write() as c:
                    current = await self._learner(c, learner.platform, learner.user_id, lock=True)
                    where = and_(y.platform == learner.platform, y.user_id == learner.user_id, y.day == day)
                    result = await c.execute(
                        update(d.daily_days)
                        .where(where)
                        .values(reviews=y.reviews + reviews, new=y.new + new, channel=y.channel + channel)
                    )
                    if result.rowcount == 0:
                        await c.execute(
                            insert(d.daily_days).values(
                                platform=learner.platform, user_id=learner.user_id, day=day,
                                reviews=reviews, new=new, channel=channel,
                            )
                        )
                    after = Learner(
                        current.platform, current.user_id, current.zone, current.caps, current.packs,
                        current.reminder, record_day(current.streak, day),
                    )
                    await self._put_learner(c, after)
                return after
            except IntegrityError:
                # Two first answers of the same day (or learner) at once: the loser tries again.
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def practised_packs(self, platform: str, user_id: str) -> list[str]:
        r = t.reviews.c
        async with self._engine.connect() as c:
            rows = await c.execute(
                select(r.pack_id).where(and_(r.platform == platform, r.user_id == user_id)).distinct().order_by(r.pack_id)
            )
            return [row.pack_id for row in rows]

    # ------------------------------------------------------------ cards

    def _unsuspended(self, platform: str, user_id: str) -> Any:
        r = t.reviews.c
        k = d.daily_cards.c
        suspended = select(k.pack_id, k.question_id).where(
            and_(k.platform == platform, k.user_id == user_id, k.suspended == true(),
                 k.pack_id == r.pack_id, k.question_id == r.question_id)
        )
        return and_(r.platform == platform, r.user_id == user_id, ~suspended.exists())

    async def due_cards(
        self, platform: str, user_id: str, now: datetime, limit: int
    ) -> tuple[list[DueCard], int, datetime | None]:
        r = t.reviews.c
        mine = self._unsuspended(platform, user_id)
        async with self._engine.connect() as c:
            rows = (
                await c.execute(
                    select(r.pack_id, r.question_id, r.due, r.card)
                    .where(and_(mine, r.due <= now))
                    .order_by(r.due, r.pack_id, r.question_id)
                    .limit(max(limit, 0))
                )
            ).all() if limit > 0 else []
            total = (await c.execute(select(func.count()).where(and_(mine, r.due <= now)))).scalar() or 0
            later = (await c.execute(select(func.min(r.due)).where(and_(mine, r.due > now)))).scalar()
        cards = [DueCard(row.pack_id, row.question_id, row.due, row.card) for row in rows]
        if isinstance(later, str):  # SQLite's MIN() hands back the stored text
            later = datetime.fromisoformat(later)
        if isinstance(later, datetime) and later.tzinfo is None:
            later = later.replace(tzinfo=UTC)
        return cards, int(total), later

    async def new_items(self, platform: str, user_id: str, packs: Sequence[str], limit: int) -> list[ItemKey]:
        if limit <= 0 or not packs:
            return []
        q = t.questions.c
        r = t.reviews.c
        seen = select(r.question_id).where(
            and_(r.platform == platform, r.user_id == user_id, r.pack_id == q.pack_id, r.question_id == q.question_id)
        )
        order = {p: i for i, p in enumerate(packs)}
        async with self._engine.connect() as c:
            rows = await c.execute(
                select(q.pack_id, q.question_id)
                .where(and_(q.pack_id.in_(list(packs)), ~seen.exists()))
                .order_by(q.pack_id, q.question_id)
            )
            items = [(row.pack_id, row.question_id) for row in rows]
        items.sort(key=lambda k: order.get(k[0], len(order)))
        return items[:limit]

    async def card_failures(self, platform: str, user_id: str, item: ItemKey) -> tuple[int, bool]:
        k = d.daily_cards.c
        async with self._engine.connect() as c:
            row = (
                await c.execute(
                    select(k.failures, k.suspended).where(
                        and_(k.platform == platform, k.user_id == user_id, k.pack_id == item[0], k.question_id == item[1])
                    )
                )
            ).first()
        return (row.failures, bool(row.suspended)) if row is not None else (0, False)

    async def save_card_failures(self, platform: str, user_id: str, item: ItemKey, failures: int, suspended: bool) -> None:
        k = d.daily_cards.c
        async with self._write() as c:
            await c.execute(
                delete(d.daily_cards).where(
                    and_(k.platform == platform, k.user_id == user_id, k.pack_id == item[0], k.question_id == item[1])
                )
            )
            await c.execute(
                insert(d.daily_cards).values(
                    platform=platform, user_id=user_id, pack_id=item[0], question_id=item[1],
                    failures=failures, suspended=suspended,
                )
            )

    async def leeches(self, platform: str, user_id: str) -> list[ItemKey]:
        k = d.daily_cards.c
        async with self._engine.connect() as c:
            rows = await c.execute(
                select(k.pack_id, k.question_id)
                .where(and_(k.platform == platform, k.user_id == user_id, k.suspended == true()))
                .order_by(k.pack_id, k.question_id)
            )
            return [(row.pack_id, row.question_id) for row in rows]

    async def cards(self, platform: str, user_id: str) -> list[tuple[str, str, str]]:
        r = t.reviews.c
        async with self._engine.connect() as c:
            rows = await c.execute(
                select(r.pack_id, r.question_id, r.card).where(and_(r.platform == platform, r.user_id == user_id))
            )
            return [(row.pack_id, row.question_id, row.card) for row in rows]

    # ------------------------------------------------------------ reminders

    async def due_reminders(self, now: datetime, limit: int = 100, *, platforms: Platforms = None) -> list[Learner]:
        l_ = d.daily_learners.c
        async with self._engine.connect() as c:
            rows = await c.execute(
                select(d.daily_learners)
                .where(
                    and_(
                        _on(l_.platform, platforms),
                        l_.remind_next_at.is_not(None),
                        l_.remind_next_at <= now,
                        l_.remind_stopped == false(),
                    )
                )
                .order_by(l_.remind_next_at)
                .limit(limit)
            )
            return [_learner(r) for r in rows]

    async def advance_reminder(self, learner: Learner, *, next_at: datetime) -> None:
        l_ = d.daily_learners.c
        async with self._write() as c:
            await c.execute(
                update(d.daily_learners)
                .where(and_(l_.platform == learner.platform, l_.user_id == learner.user_id))
                .values(remind_next_at=next_at)
            )

    async def claim_reminder(
        self, learner: Learner, day: date, *, due: int, now: datetime, next_at: datetime
    ) -> bool:
        """Take the learner's reminder for `day` and move it on, in one transaction; False if taken."""
        l_ = d.daily_learners.c
        try:
            async with self._write() as c:
                await c.execute(
                    insert(d.daily_reminders).values(
                        platform=learner.platform, user_id=learner.user_id, day=day,
                        status="claimed" if due else "skipped", due=due, claimed_at=now,
                    )
                )
                await c.execute(
                    update(d.daily_learners)
                    .where(and_(l_.platform == learner.platform, l_.user_id == learner.user_id))
                    .values(remind_last_day=day, remind_next_at=next_at)
                )
        except IntegrityError:
            return False
        return True

    async def finish_reminder(self, learner: Learner, day: date, *, sent: bool, failures: int, stopped: bool) -> None:
        """Record how the reminder's delivery went, and the learner's failure count."""
        l_ = d.daily_learners.c
        m = d.daily_reminders.c
        async with self._write() as c:
            await c.execute(
                update(d.daily_reminders)
                .where(and_(m.platform == learner.platform, m.user_id == learner.user_id, m.day == day))
                .values(status="sent" if sent else "failed")
            )
            values: dict[str, Any] = {"remind_failures": failures, "remind_stopped": stopped}
            if stopped:
                values["remind_next_at"] = None
            await c.execute(
                update(d.daily_learners)
                .where(and_(l_.platform == learner.platform, l_.user_id == learner.user_id))
                .values(**values)
            )

    async def reminder_log(self, platform: str, user_id: str) -> list[tuple[date, str, int]]:
        """Return the learner's reminder claims as (day, status, due), oldest first."""
        m = d.daily_reminders.c
        async with self._engine.connect() as c:
            rows = await c.execute(
                select(m.day, m.status, m.due).where(and_(m.platform == platform, m.user_id == user_id)).order_by(m.day)
            )
            return [(row.day, row.status, row.due) for row in rows]

    # ------------------------------------------------------------ the scheduler's next wake

    async def next_wake(self, every: timedelta, *, platforms: Platforms = None) -> datetime | None:
        """Return the earliest instant any job of `platforms` may become due (None: nothing scheduled)."""
        s = d.daily_schedules.c
        p = d.daily_posts.c
        l_ = d.daily_learners.c
        async with self._engine.connect() as c:
            times = [
                (await c.execute(select(func.min(s.next_at)).where(and_(_on(s.platform, platforms), s.paused == false())))).scalar(),
                (
                    await c.execute(
                        select(func.min(p.reveal_at)).where(
                            and_(_on(p.platform, platforms), p.status == "posted", p.revealed_at.is_(None))
                        )
                    )
                ).scalar(),
                (
                    await c.execute(
                        select(func.min(l_.remind_next_at)).where(
                            and_(_on(l_.platform, platforms), l_.remind_stopped == false())
                        )
                    )
                ).scalar(),
            ]
            edited = (
                await c.execute(
                    select(func.min(func.coalesce(p.tally_edited_at, p.posted_at))).where(
                        and_(_on(p.platform, platforms), p.tally_dirty == true(), p.revealed_at.is_(None))
                    )
                )
            ).scalar()
        found = [_aware(v) for v in times if v is not None]
        if edited is not None:
            found.append(_aware(edited) + every)
        return min(found) if found else None


def _aware(value: Any) -> datetime:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    assert isinstance(value, datetime)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
