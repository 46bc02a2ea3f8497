"""Learners in daily practice: settings, day counts, cards and leeches, members' answers to posts."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import and_, bindparam, func, select, true
from sqlalchemy.exc import IntegrityError

from bot.core.daily.channel import MemberAnswer
from bot.core.daily.learner import Learner
from bot.core.daily.queue import DayCount, DueCard
from bot.core.daily.rotation import ItemKey

from . import daily_tables as d
from . import tables as t
from .base import Base
from .daily_rows import _answer, put_failures, put_learner, put_member_answer, read_learner
from .prepared import Prepared

_K = d.daily_cards.c
_CARD_FAILURES = Prepared(
    select(_K.failures, _K.suspended).where(
        and_(*(_K[c] == bindparam(c) for c in ("platform", "user_id", "pack_id", "question_id")))
    )
)


class LearnerRows(Base):
    """A learner's daily state, and members' answers to a post."""

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
        """Store a member's picks or hint (an answer itself goes through `AnswerStore.write`)."""
        try:
            async with self._write() as c:
                return await put_member_answer(c, post_id, answer, previous_attempts=previous_attempts, key=key)
        except IntegrityError:
            return False

    # ------------------------------------------------------------ learners

    async def get_learner(self, platform: str, user_id: str) -> Learner:
        async with self._engine.connect() as c:
            return await read_learner(c, platform, user_id)

    async def save_learner(self, learner: Learner) -> None:
        async with self._write() as c:
            await put_learner(c, learner)

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
        """A card's failures in the daily review and whether it is a leech (every review answer reads them)."""
        params = {"platform": platform, "user_id": user_id, "pack_id": item[0], "question_id": item[1]}
        rows = await self._rows(_CARD_FAILURES, params)
        return (rows[0]["failures"], bool(rows[0]["suspended"])) if rows else (0, False)

    async def save_card_failures(self, platform: str, user_id: str, item: ItemKey, failures: int, suspended: bool) -> None:
        async with self._write() as c:
            await put_failures(c, platform, user_id, item, failures, suspended)

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

