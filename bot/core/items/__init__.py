"""Question types: one module each, registered here. The quiz flow dispatches through `kind_of`.

To add a type: add its pydantic model to `bot/core/packs/models.py`, write a module here with a
class that satisfies `ItemType` (see `base.py`), and register an instance in `TYPES`.
"""

from __future__ import annotations

import random

from bot.core.errors import SaveConflict, StaleAction
from bot.core.i18n import _
from bot.core.model import ItemState
from bot.core.packs.models import AnyQuestion

from .base import (
    QUESTION_CHANGED,
    Changed,
    Context,
    Graded,
    Input,
    ItemType,
    Make,
    NotAnAnswer,
    Outcome,
    ProofJob,
    View,
)
from .blanks import BlanksType
from .choice import ChoiceType
from .code import CodeType
from .short import ShortType

TYPES: dict[str, ItemType] = {t.name: t for t in (ChoiceType(), BlanksType(), ShortType(), CodeType())}


def kind_of(question: AnyQuestion) -> ItemType:
    """Return the rules of the question's type."""
    return TYPES[question.type]


_RESHUFFLE = random.Random()  # for an item made again; a new Random() costs 13 µs of seeding


def remade(item: ItemState, question: AnyQuestion) -> bool:
    """Make the item again if its pack changed what the learner answers by position since it was made
    (`ItemType.seen`); return whether it did. Items made before `seen` existed are kept as they are."""
    if item.seen is None:
        return False
    seen = kind_of(question).seen(question)
    if seen == item.seen:
        return False
    _make_again(item, question)
    return True


def _make_again(item: ItemState, question: AnyQuestion) -> None:
    fresh = ItemState(item.pack, item.question)
    kind_of(question).prepare(question, fresh, _RESHUFFLE)
    item.order, item.picked, item.selections, item.seen = fresh.order, [], {}, fresh.seen


async def answered(question: AnyQuestion, item: ItemState, given: Input, ctx: Context) -> Outcome:
    """Apply one input to the item and grade it: the one path of a quiz's item and a daily post's.

    A press on an item whose pack changed it since it was shown (`remade`), or a control its question's
    type has not (the pack changed the question's type: a short answer's form sent to what is now a
    choice), grades nothing: the item is made again and `Changed` says why (`QUESTION_CHANGED`).
    """
    if remade(item, question):
        return Changed(_(QUESTION_CHANGED))
    try:
        return await kind_of(question).answer(question, item, given, ctx)
    except StaleAction as exc:
        if isinstance(exc, SaveConflict):
            raise
        _make_again(item, question)  # made as its type makes it now
        return Changed(_(QUESTION_CHANGED))


__all__ = [
    "QUESTION_CHANGED",
    "TYPES",
    "Changed",
    "Context",
    "Graded",
    "Input",
    "ItemType",
    "Make",
    "NotAnAnswer",
    "Outcome",
    "ProofJob",
    "View",
    "answered",
    "kind_of",
    "remade",
]
