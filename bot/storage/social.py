"""The social side in the database: races (RaceStore), leaderboards, privacy, picture data.

Concurrency: every change to a race happens in one transaction that first locks the race's row
(`SELECT ... FOR UPDATE`; on SQLite the process's single writer). So with several processes on
PostgreSQL an answer is numbered and stored exactly once, in the order the row lock was granted,
and a round closes exactly once: an answer that waits behind the close sees the new round and is
refused as "round closed". Within a process, answers to one race that arrive while a transaction
is running are queued and stored together by the next one, numbered in the order they arrived.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import and_, case, delete, func, insert, select, true, type_coerce, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.core.pictures import ProgressData, TopicProgress
from bot.core.race.board import (
    Board,
    BoardRow,
    Period,
    board_points,
    period_start,
    rank_by_accuracy,
    rank_by_points,
)
from bot.core.race.errors import AlreadyAnswered, RaceRunning, RoundClosed
from bot.core.race.ports import Change, Recorded
from bot.core.race.rules import Race, RaceAnswer

from . import social_tables as st
from . import tables as t
from .answers import write_parts
from .base import Base, HasDatabase
from .codec import attempt_row, review_row
from .daily_rows import read_learner

R, A, D, P = st.races.c, st.race_answers.c, st.race_drafts.c, st.leaderboard_privacy.c


class SocialStore(Base):
    """Implements `bot.core.race.RaceStore`, and the leaderboard and picture queries."""

    def __init__(self, engine: AsyncEngine, *, write_lock: asyncio.Lock | None = None) -> None:
        super().__init__(engine)
        if write_lock is not None:
            self._write_lock = write_lock
        self._pending: dict[str, list[tuple[RaceAnswer, asyncio.Future[Recorded]]]] = {}
        self._flushers: dict[str, asyncio.Task[None]] = {}

    @classmethod
    def beside(cls, repository: HasDatabase) -> SocialStore:
        """Share the repository's engine and, on SQLite, its single-writer queue."""
        return cls(repository.db.engine, write_lock=repository.db.write_lock)

    # ------------------------------------------------------------ races

    async def create_race(self, race: Race) -> None:
        now = datetime.now(UTC)
        try:
            async with self._write() as c:
                await c.execute(
                    insert(st.races).values(
                        id=race.id,
                        platform=race.platform,
                        scope=race.scope,
                        channel_id=race.channel_id,
                        status=race.status,
                        round=race.round,
                        deadline=race.deadline,
                        next_seq=max((a.seq for a in race.answers), default=0),
                        data=_data(race),
                        created_at=race.created_at,
                        updated_at=now,
                        version=race.version,
                    )
                )
        except IntegrityError as exc:
            running = await self.running_race(race.platform, race.scope, race.channel_id)
            raise RaceRunning(running.started_by_name if running else "") from exc

    async def get_race(self, race_id: str) -> Race | None:
        async with self._engine.connect() as c:
            row = (await c.execute(select(st.races).where(R.id == race_id))).first()
            return None if row is None else await _load(c, row)

    async def running_race(self, platform: str, scope: str, channel_id: str) -> Race | None:
        async with self._engine.connect() as c:
            row = (
                await c.execute(
                    select(st.races).where(
                        and_(
                            R.platform == platform,
                            R.scope == scope,
                            R.channel_id == channel_id,
                            R.status == "running",
                        )
                    )
                )
            ).first()
            return None if row is None else await _load(c, row)

    async def running_races(self) -> list[Race]:
        async with self._engine.connect() as c:
            rows = (await c.execute(select(st.races).where(R.status == "running").order_by(R.deadline))).all()
            return [await _load(c, row) for row in rows]

    async def record_answer(self, race_id: str, answer: RaceAnswer) -> Recorded:
        """Queue the answer; one writer per race stores everything queued in one transaction.

        Under a burst (200 members clicking within a second) this turns hundreds of commits into a
        few, while keeping each answer's number in the order it reached the queue.
        """
        future: asyncio.Future[Recorded] = asyncio.get_running_loop().create_future()
        self._pending.setdefault(race_id, []).append((answer, future))
        if race_id not in self._flushers:
            # A task of its own: a caller that gives up waiting must not strand the others' answers.
            self._flushers[race_id] = asyncio.create_task(self._flush(race_id))
        return await future

    async def _flush(self, race_id: str) -> None:
        try:
            while batch := self._pending.pop(race_id, []):
                try:
                    outcomes = await self._record_batch(race_id, [answer for answer, _ in batch])
                except Exception as exc:
                    outcomes = [exc] * len(batch)
                for (_, future), outcome in zip(batch, outcomes, strict=True):
                    if future.done():
                        continue
                    if isinstance(outcome, Recorded):
                        future.set_result(outcome)
                    else:
                        future.set_exception(outcome)
        finally:
            del self._flushers[race_id]

    async def _record_batch(self, race_id: str, answers: list[RaceAnswer]) -> list[Recorded | Exception]:
        """Store answers in arrival order in one transaction, under the race's row lock."""
        outcomes: list[Recorded | Exception] = []
        async with self._write() as c:
            row = (
                await c.execute(
                    select(R.round, R.status, R.deadline, R.next_seq).where(R.id == race_id).with_for_update()
                )
            ).first()
            if row is None:
                return [RoundClosed() for _ in answers]
            answered = list(
                (
                    await c.execute(
                        select(A.user_id)
                        .where(and_(A.race_id == race_id, A.round == row.round))
                        .order_by(A.seq)
                    )
                ).scalars()
            )
            seen = set(answered)
            seq = int(row.next_seq)
            rows: list[dict[str, Any]] = []
            for answer in answers:
                if row.status != "running" or answer.round != row.round or answer.at >= row.deadline:
                    outcomes.append(RoundClosed())
                elif answer.user_id in seen:
                    outcomes.append(AlreadyAnswered())
                else:
                    seq += 1
                    seen.add(answer.user_id)
                    answered.append(answer.user_id)
                    rows.append(
                        {
                            "race_id": race_id,
                            "round": answer.round,
                            "user_id": answer.user_id,
                            "name": answer.name[:100],
                            "seq": seq,
                            "answer": answer.answer,
                            "correct": answer.correct,
                            "at": answer.at,
                        }
                    )
                    outcomes.append(Recorded(seq=seq, place=len(answered), answered=frozenset(answered)))
            if rows:
                await c.execute(update(st.races).where(R.id == race_id).values(next_seq=seq))
                await c.execute(insert(st.race_answers), rows)
        return outcomes

    async def update_race(self, race_id: str, change: Callable[[Race], Change | None]) -> Change | None:
        async with self._write() as c:
            row = (await c.execute(select(st.races).where(R.id == race_id).with_for_update())).first()
            if row is None:
                return None
            done = change(await _load(c, row))
            if done is None:
                return None
            race = done.race
            await c.execute(
                update(st.races)
                .where(R.id == race_id)
                .values(
                    status=race.status,
                    round=race.round,
                    deadline=race.deadline,
                    data=_data(race),
                    updated_at=datetime.now(UTC),
                    version=race.version,
                )
            )
            finished = (
                D.race_id == race_id if not race.running else and_(D.race_id == race_id, D.round < race.round)
            )
            await c.execute(delete(st.race_drafts).where(finished))
            if done.attempts:
                await self._store_attempts(c, done)
        return done

    async def _store_attempts(self, c: AsyncConnection, done: Change) -> None:
        """Write the round's attempts and each learner's card as the core moves it from the stored one."""
        attempts = done.attempts
        await c.execute(insert(t.attempts), [attempt_row(a) for a in attempts])
        r = t.reviews.c
        first = attempts[0]
        current = {
            row.user_id: row.card
            for row in await c.execute(
                select(r.user_id, r.card).where(
                    and_(
                        r.platform == first.platform,
                        r.pack_id == first.pack,
                        r.question_id == first.question,
                        r.user_id.in_([a.user_id for a in attempts]),
                    )
                )
            )
        }
        statement = (sqlite_insert if self._sqlite else pg_insert)(t.reviews)
        statement = statement.on_conflict_do_update(
            index_elements=["platform", "user_id", "pack_id", "question_id"],
            set_={
                "card": statement.excluded.card,
                "due": statement.excluded.due,
                "correct": statement.excluded.correct,
                "answers": t.reviews.c.answers + 1,
            },
        )
        await c.execute(statement, [review_row(card) for card in done.cards(current)])
        for day in done.days():
            await write_parts(c, day)

    async def save_draft(
        self, race_id: str, round_index: int, user_id: str, blank: int, option: int
    ) -> dict[int, int]:
        key = and_(D.race_id == race_id, D.round == round_index, D.user_id == user_id)
        async with self._write() as c:
            stored = (await c.execute(select(D.picks).where(key))).scalar()
            picks = _picks(stored)
            picks[blank] = option
            encoded = json.dumps({str(k): v for k, v in picks.items()})
            if stored is None:
                await c.execute(
                    insert(st.race_drafts).values(
                        race_id=race_id, round=round_index, user_id=user_id, picks=encoded
                    )
                )
            else:
                await c.execute(update(st.race_drafts).where(key).values(picks=encoded))
        return picks

    async def get_draft(self, race_id: str, round_index: int, user_id: str) -> dict[int, int]:
        async with self._engine.connect() as c:
            stored = (
                await c.execute(
                    select(D.picks).where(
                        and_(D.race_id == race_id, D.round == round_index, D.user_id == user_id)
                    )
                )
            ).scalar()
        return _picks(stored)

    async def set_anchor(self, race_id: str, anchor: dict[str, str]) -> None:
        async with self._write() as c:
            row = (await c.execute(select(R.data).where(R.id == race_id).with_for_update())).first()
            if row is None:
                return
            data = json.loads(row.data)
            data["anchor"] = dict(anchor)
            await c.execute(
                update(st.races).where(R.id == race_id).values(data=json.dumps(data, separators=(",", ":")))
            )

    # ------------------------------------------------------------ leaderboards

    async def set_leaderboard_visible(self, platform: str, user_id: str, visible: bool) -> None:
        """`/quiz privacy leaderboard on|off`: show or hide the learner on every board of the platform."""
        async with self._write() as c:
            await c.execute(
                delete(st.leaderboard_privacy).where(and_(P.platform == platform, P.user_id == user_id))
            )
            await c.execute(
                insert(st.leaderboard_privacy).values(
                    platform=platform, user_id=user_id, hidden=not visible, updated_at=datetime.now(UTC)
                )
            )

    async def leaderboard_visible(self, platform: str, user_id: str) -> bool:
        async with self._engine.connect() as c:
            hidden = (
                await c.execute(select(P.hidden).where(and_(P.platform == platform, P.user_id == user_id)))
            ).scalar()
        return not hidden

    async def leaderboard(
        self,
        platform: str,
        scope: str,
        *,
        now: datetime,
        period: Period = "week",
        pack: str | None = None,
        tz: str | None = None,
    ) -> Board:
        """Rank the scope's learners over the period (see `bot.core.race.board` for the rules)."""
        since = period_start(period, now, tz)
        a = t.attempts.c
        source = a.mode  # quiz, daily, race or review: the core weighs each (`board_points`)
        hidden = select(P.user_id).where(and_(P.platform == platform, P.hidden == true()))
        conditions = [a.platform == platform, a.scope == scope, a.user_id.not_in(hidden), a.at <= now]
        if since is not None:
            conditions.append(a.at >= since)
        if pack is not None:
            conditions.append(a.pack_id == pack)
        query = (
            select(
                a.user_id,
                source.label("source"),
                func.sum(a.points).label("points"),
                func.count().label("answers"),
                func.sum(case((a.correct == true(), 1), else_=0)).label("right"),
                type_coerce(func.max(case((a.points > 0, a.at))), t.UTCDateTime).label("scored_at"),
                type_coerce(func.max(a.at), t.UTCDateTime).label("last_at"),
            )
            .where(and_(*conditions))
            .group_by(a.user_id, source)
        )
        by_source: dict[str, dict[str, int]] = defaultdict(dict)
        answers: dict[str, int] = defaultdict(int)
        right: dict[str, int] = defaultdict(int)
        scored_at: dict[str, datetime] = {}
        last_at: dict[str, datetime] = {}
        async with self._engine.connect() as c:
            for row in await c.execute(query):
                user = row.user_id
                by_source[user][row.source] = int(row.points or 0)
                answers[user] += int(row.answers)
                right[user] += int(row.right or 0)
                if row.scored_at is not None:
                    scored_at[user] = max(scored_at.get(user, row.scored_at), row.scored_at)
                last_at[user] = max(last_at.get(user, row.last_at), row.last_at)
        points_rows = [
            BoardRow(u, board_points(by_source[u]), answers[u], right[u], scored_at.get(u, last_at[u]))
            for u in by_source
        ]
        accuracy_rows = [
            BoardRow(u, board_points(by_source[u]), answers[u], right[u], last_at[u]) for u in by_source
        ]
        return Board(period, since, pack, rank_by_points(points_rows), rank_by_accuracy(accuracy_rows))

    # ------------------------------------------------------------ pictures

    async def progress_data(
        self, platform: str, user_id: str, *, now: datetime, weeks: int = 16
    ) -> ProgressData:
        """What the progress picture shows: accuracy and mastered items per topic, answers per day."""
        a, r, q = t.attempts.c, t.reviews.c, t.questions.c
        mine = and_(a.platform == platform, a.user_id == user_id)
        since = datetime.combine(now.date() - timedelta(days=7 * weeks), datetime.min.time(), tzinfo=UTC)
        async with self._engine.connect() as c:
            topic_rows = (
                await c.execute(
                    select(
                        a.pack_id,
                        a.topic,
                        func.count().label("n"),
                        func.sum(case((a.correct == true(), 1), else_=0)).label("right"),
                    )
                    .where(mine)
                    .group_by(a.pack_id, a.topic)
                )
            ).all()
            card_rows = (
                await c.execute(
                    select(r.pack_id, q.topic, r.card)
                    .select_from(
                        t.reviews.join(
                            t.questions, and_(q.pack_id == r.pack_id, q.question_id == r.question_id)
                        )
                    )
                    .where(and_(r.platform == platform, r.user_id == user_id))
                )
            ).all()
            learner = await read_learner(c, platform, user_id)
            day_rows = (
                await c.execute(
                    select(func.date(a.at).label("day"), func.count().label("n"))
                    .where(and_(mine, a.at >= since))
                    .group_by(func.date(a.at))
                )
            ).all()
            all_days = (
                await c.execute(
                    select(func.date(a.at).label("day"))
                    .where(and_(mine, a.at >= now - timedelta(days=400)))
                    .distinct()
                )
            ).all()
        topics = tuple(
            TopicProgress(
                label=f"{row.pack_id} · {row.topic or '(no topic)'}",
                answers=int(row.n),
                right=int(row.right or 0),
                mastered=0,  # counted by the core (`ProgressData.settled`)
            )
            for row in sorted(topic_rows, key=lambda row: (row.pack_id, row.topic or ""))
        )
        per_day = {_as_date(row.day): int(row.n) for row in day_rows}
        return ProgressData(
            topics=topics,
            per_day=per_day,
            practice_days=tuple(sorted({_as_date(row.day) for row in all_days}, reverse=True)),
            today=now.date(),
            stored_streak=learner.streak,
            zone=learner.zone,
            cards=tuple((row.pack_id, row.topic, row.card) for row in card_rows),
        )


async def _load(c: AsyncConnection, row: Any) -> Race:
    answers = [
        RaceAnswer(
            round=int(x.round),
            user_id=x.user_id,
            name=x.name,
            answer=x.answer,
            correct=bool(x.correct),
            at=x.at,
            seq=int(x.seq),
        )
        for x in await c.execute(select(st.race_answers).where(A.race_id == row.id).order_by(A.seq))
    ]
    data = json.loads(row.data)
    data.update(status=row.status, round=row.round, version=row.version)
    return Race.from_json(data, answers)


def _data(race: Race) -> str:
    return json.dumps(race.to_json(with_answers=False), separators=(",", ":"))


def _picks(stored: str | None) -> dict[int, int]:
    if not stored:
        return {}
    return {int(k): int(v) for k, v in json.loads(stored).items()}


def _as_date(value: Any) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])
