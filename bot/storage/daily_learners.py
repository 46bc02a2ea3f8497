"""Learners in daily practice: settings, day counts, cards and leeches, members' answers to posts."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

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
from .due import LIVE, SUSPENDED, is_due
from .prepared import Prepared

# Reads built once and run through `Base._rows` (on PostgreSQL on asyncpg itself): a statement
# built per call cost more of the bot's CPU than running it (its clauses, then its cache key).
_K = d.daily_cards.c
_CARD_FAILURES = Prepared(
    select(_K.failures, _K.suspended).where(
        and_(*(_K[c] == bindparam(c) for c in ("platform", "user_id", "pack_id", "question_id")))
    )
)
_A = d.daily_answers.c
_MEMBER_ANSWER = Prepared(
    select(d.daily_answers).where(and_(_A.post_id == bindparam("post_id"), _A.user_id == bindparam("user_id")))
)
_Y = d.daily_days.c
_DAY_COUNT = Prepared(
    select(_Y.reviews, _Y.new, _Y.channel).where(
        and_(_Y.platform == bindparam("platform"), _Y.user_id == bindparam("user_id"), _Y.day == bindparam("day"))
    )
)
_R = t.reviews.c
_MINE = and_(
    _R.platform == bindparam("platform"), _R.user_id == bindparam("user_id"), ~SUSPENDED, LIVE
)
_DUE_NOW = is_due(_R.due, _R.card, bindparam("now"), bindparam("before"))  # the core's rule (`due.py`)
_DUE = Prepared(
    select(_R.pack_id, _R.question_id, _R.due, _R.card)
    .where(and_(_MINE, _DUE_NOW))
    .order_by(_R.due, _R.pack_id, _R.question_id)
    .limit(bindparam("limit"))
)
_Q = t.questions.c
_NEW_ITEMS = (  # a list of packs is no `Prepared` statement (SQLAlchemy expands it); built once all the same
    select(_Q.pack_id, _Q.question_id)
    .where(
        and_(
            _Q.pack_id.in_(bindparam("packs", expanding=True)),
            ~select(_R.question_id).where(
                and_(_R.platform == bindparam("platform"), _R.user_id == bindparam("user_id"),
                     _R.pack_id == _Q.pack_id, _R.question_id == _Q.question_id)
            ).exists(),
        )
    )
    .order_by(_Q.pack_id, _Q.question_id)
)  # fmt: skip
_DUE_COUNT = Prepared(select(func.count().label("n")).where(and_(_MINE, _DUE_NOW)))
_DUE_LATER = Prepared(
    select(_R.pack_id, _R.question_id, _R.due, _R.card).where(and_(_MINE, ~_DUE_NOW)).order_by(_R.due).limit(1)
)


class LearnerRows(Base):
    """A learner's daily state, and members' answers to a post."""

    # ------------------------------------------------------------ member answers

    async def member_answer(self, post_id: str, user_id: str) -> MemberAnswer | None:
        rows = await self._rows(_MEMBER_ANSWER, {"post_id": post_id, "user_id": user_id})
        return _answer(rows[0]) if rows else None

    async def member_answers(self, post_id: str) -> list[MemberAnswer]:
        async with self._read() as c:
            rows = await c.execute(select(d.daily_answers).where(_A.post_id == post_id))
            return [_answer(r._mapping) for r in rows]

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
        async with self._read() as c:
            return await read_learner(c, platform, user_id)

    async def save_learner(self, learner: Learner) -> None:
        async with self._write() as c:
            await put_learner(c, learner)

    async def day_count(self, platform: str, user_id: str, day: date) -> DayCount:
        rows = await self._rows(_DAY_COUNT, {"platform": platform, "user_id": user_id, "day": day})
        return DayCount(rows[0]["reviews"], rows[0]["new"], rows[0]["channel"]) if rows else DayCount()

    async def practised_packs(self, platform: str, user_id: str) -> list[str]:
        r = t.reviews.c
        async with self._read() as c:
            rows = await c.execute(
                select(r.pack_id).where(and_(r.platform == platform, r.user_id == user_id)).distinct().order_by(r.pack_id)
            )
            return [row.pack_id for row in rows]

    # ------------------------------------------------------------ cards

    async def due_cards(
        self, platform: str, user_id: str, now: datetime, before: datetime, limit: int
    ) -> tuple[list[DueCard], int, DueCard | None]:
        """The learner's first `limit` cards due at `now` (not a leech's), how many, and the next card not yet due.

        `before` is the end of the learner's practice day (`bot.core.review.due_before`); a card in
        Review state due before it is due, one in a learning step only once `now` reaches it (`due.py`).
        """
        mine = {"platform": platform, "user_id": user_id, "now": now, "before": before}
        rows = await self._rows(_DUE, {**mine, "limit": limit}) if limit > 0 else []
        total = (await self._rows(_DUE_COUNT, mine))[0]["n"] or 0
        later = await self._rows(_DUE_LATER, mine)
        cards = [DueCard(row["pack_id"], row["question_id"], row["due"], row["card"]) for row in rows + later]
        return cards[: len(rows)], int(total), cards[len(rows)] if later else None

    async def new_items(self, platform: str, user_id: str, packs: Sequence[str], limit: int) -> list[ItemKey]:
        if limit <= 0 or not packs:
            return []
        order = {p: i for i, p in enumerate(packs)}
        async with self._read() as c:
            rows = await c.execute(_NEW_ITEMS, {"platform": platform, "user_id": user_id, "packs": list(packs)})
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
        async with self._read() as c:
            rows = await c.execute(
                select(k.pack_id, k.question_id)
                .where(and_(k.platform == platform, k.user_id == user_id, k.suspended == true()))
                .order_by(k.pack_id, k.question_id)
            )
            return [(row.pack_id, row.question_id) for row in rows]

    async def cards(self, platform: str, user_id: str) -> list[tuple[str, str, str]]:
        r = t.reviews.c
        async with self._read() as c:
            rows = await c.execute(
                select(r.pack_id, r.question_id, r.card).where(and_(r.platform == platform, r.user_id == user_id))
            )
            return [(row.pack_id, row.question_id, row.card) for row in rows]

