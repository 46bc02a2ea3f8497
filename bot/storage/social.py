"""Races in the database (RaceStore); `SocialStore` also answers the leaderboard and picture queries.

Those (leaderboards, their privacy switch, picture data) live in `social_boards.BoardRows`, which
`SocialStore` inherits, so one store serves `bot.core.race`'s two ports.

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
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Self

from sqlalchemy import and_, delete, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.core.race.errors import AlreadyAnswered, RaceRunning, RoundClosed
from bot.core.race.ports import Change, Recorded
from bot.core.race.rules import Race, RaceAnswer

from . import social_tables as st
from . import tables as t
from .answers import write_parts
from .base import HasDatabase
from .codec import attempt_row, review_row
from .social_boards import BoardRows

R, A, D = st.races.c, st.race_answers.c, st.race_drafts.c


class SocialStore(BoardRows):
    """Implements `bot.core.race.RaceStore`, and the leaderboard and picture queries."""

    def __init__(self, engine: AsyncEngine, *, write_lock: asyncio.Lock | None = None) -> None:
        super().__init__(engine)
        if write_lock is not None:
            self._write_lock = write_lock
        self._pending: dict[str, list[tuple[RaceAnswer, asyncio.Future[Recorded]]]] = {}
        self._flushers: dict[str, asyncio.Task[None]] = {}

    @classmethod
    def beside(cls, repository: HasDatabase) -> Self:
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
        async with self._read() as c:
            row = (await c.execute(select(st.races).where(R.id == race_id))).first()
            return None if row is None else await _load(c, row)

    async def running_race(self, platform: str, scope: str, channel_id: str) -> Race | None:
        async with self._read() as c:
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
        async with self._read() as c:
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
        async with self._read() as c:
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
                update(st.races).where(R.id == race_id).values(data=json.dumps(data, separators=(",", ":"), ensure_ascii=False))
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
    """The race's JSON, non-ASCII text as is: the items' snapshots stay within the length their bound counts."""
    return json.dumps(race.to_json(with_answers=False), separators=(",", ":"), ensure_ascii=False)


def _picks(stored: str | None) -> dict[int, int]:
    if not stored:
        return {}
    return {int(k): int(v) for k, v in json.loads(stored).items()}
