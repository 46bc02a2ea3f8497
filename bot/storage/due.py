"""Which review cards are due, in SQL: the core's rule (`bot.core.review.is_due`) where storage counts,
and which cards can be due at all (`LIVE`, not `SUSPENDED`).

A card in a learning step (FSRS's Learning or Relearning state, its steps minutes apart) is due at
its exact time: one answered right at 18:00 comes back at 18:10, not at once. A card in Review state
(days apart) is due from the start of the practice day its due time falls in: its due time is
before `before`, the end of the learner's practice day (`bot.core.review.due_before`). A card
stored without a state counts as Review. The state is read from the card's JSON (`reviews.card`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Integer, and_, func, or_, select, true
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement

from . import tables as t
from .daily_tables import daily_cards

REVIEW = 2  # fsrs.State.Review


class card_state(FunctionElement[int]):
    """The FSRS state in a card's JSON text, as an integer (NULL when the card has none)."""

    type = Integer()
    inherit_cache = True
    name = "card_state"


@compiles(card_state, "sqlite")
def _state_sqlite(element: card_state, compiler: Any, **kw: Any) -> str:
    return f"json_extract({compiler.process(element.clauses, **kw)}, '$.state')"


@compiles(card_state, "postgresql")
def _state_postgresql(element: card_state, compiler: Any, **kw: Any) -> str:
    return f"CAST(CAST({compiler.process(element.clauses, **kw)} AS json) ->> 'state' AS INTEGER)"


def is_due(due: Any, card: Any, now: Any, before: Any) -> ColumnElement[bool]:
    """The condition that a card (its `due` and `card` columns) is due at `now`, its day ending at `before`."""
    return or_(due <= now, and_(due < before, func.coalesce(card_state(card), REVIEW) == REVIEW))


_R, _K = t.reviews.c, daily_cards.c
# A card that can be due at all (the daily review's and every "N due" count's): its question is in a
# loaded pack (a removed pack's or question's card stays in history only), and it is not a leech's.
LIVE = select(t.questions.c.question_id).where(
    and_(t.questions.c.pack_id == _R.pack_id, t.questions.c.question_id == _R.question_id)
).exists()
SUSPENDED = select(_K.pack_id).where(
    and_(_K.platform == _R.platform, _K.user_id == _R.user_id, _K.suspended == true(),
         _K.pack_id == _R.pack_id, _K.question_id == _R.question_id)
).exists()  # fmt: skip
