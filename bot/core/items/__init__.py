"""Question types: one module each, registered here. The quiz flow dispatches through `kind_of`.

To add a type: add its pydantic model to `bot/core/packs/models.py`, write a module here with a
class that satisfies `ItemType` (see `base.py`), and register an instance in `TYPES`.
"""

from __future__ import annotations

from bot.core.packs.models import AnyQuestion

from .base import Changed, Context, Graded, Input, ItemType, Make, NotAnAnswer, Outcome, ProofJob, View
from .blanks import BlanksType
from .choice import ChoiceType
from .code import CodeType
from .short import ShortType

TYPES: dict[str, ItemType] = {t.name: t for t in (ChoiceType(), BlanksType(), ShortType(), CodeType())}


def kind_of(question: AnyQuestion) -> ItemType:
    """Return the rules of the question's type."""
    return TYPES[question.type]


__all__ = [
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
]
