"""Question types: one module each, registered here. The quiz flow dispatches through `kind_of`.

To add a type: add its pydantic model to `bot/core/packs/models.py`, write a module here with a
class that satisfies `ItemType` (see `base.py`), and register an instance in `TYPES`.
"""

from __future__ import annotations

import random

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
    kind = kind_of(question)
    seen = kind.seen(question)
    if seen == item.seen:
        return False
    fresh = ItemState(item.pack, item.question)
    kind.prepare(question, fresh, _RESHUFFLE)
    item.order, item.picked, item.selections, item.seen = fresh.order, [], {}, seen
    return True


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
    "kind_of",
    "remade",
]
