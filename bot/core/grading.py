"""Pure grading of an answer, for callers outside a quiz (races, the daily question).

Each rule lives in its type's module under `items/`; these are the names to call them by.
"""

from __future__ import annotations

from collections.abc import Iterable

from .items.answers import normalize
from .items.blanks import grade as grade_blanks
from .items.choice import is_right as _choice_is_right
from .items.codetext import check as check_code
from .items.codetext import extract as extract_code
from .items.short import is_right as grade_short
from .packs import ChoiceQuestion


def grade_choice(question: ChoiceQuestion, chosen: Iterable[int]) -> bool:
    """Grade original choice indices: exactly the correct ones."""
    return _choice_is_right(question, set(chosen))


__all__ = ["check_code", "extract_code", "grade_blanks", "grade_choice", "grade_short", "normalize"]
