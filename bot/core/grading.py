"""Pure grading rules for each question type (code is graded by the sandbox)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from .errors import BadSubmission
from .packs import BlanksQuestion, ChoiceQuestion, ShortQuestion

MAX_CODE_BYTES = 64 * 1024
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)(?:\n[ \t]*```|\Z)", re.S)
_SPACES = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Trim, case-fold and collapse runs of white space."""
    return _SPACES.sub(" ", text.strip()).casefold()


def grade_choice(question: ChoiceQuestion, chosen: Iterable[int]) -> bool:
    picked = set(chosen)
    right = {i for i, c in enumerate(question.choices) if c.correct}
    return picked == right


def grade_blanks(question: BlanksQuestion, selections: dict[int, int]) -> dict[int, bool]:
    """Return, per blank, whether the selected option is the right one."""
    result: dict[int, bool] = {}
    for number in question.blanks():
        index = selections.get(number)
        chosen = question.options[index] if index is not None and 0 <= index < len(question.options) else None
        result[number] = chosen == question.answers.get(number)
    return result


_NUMBER = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")


def grade_short(question: ShortQuestion, answer: str) -> bool:
    given = normalize(answer)
    if not given:
        return False
    if any(given == normalize(a) for a in question.accept):
        return True
    if question.number is not None:
        cleaned = given.strip("`").replace(",", "")
        if _NUMBER.match(cleaned):
            value = float(cleaned)
            return math.isclose(value, question.number.value, rel_tol=0.0, abs_tol=question.number.tolerance) or (
                question.number.tolerance == 0.0 and value == question.number.value
            )
    return False


def extract_code(text: str) -> str | None:
    """Return the code in the first fenced block (```python, ```py or bare ```), or None."""
    match = _FENCE.search(text)
    if match is None:
        return None
    language = match.group(1).lower()
    if language not in ("", "python", "py", "python3"):
        raise BadSubmission(f"That block is marked `{language}`; send Python in a code block that starts with `` ```python ``.")
    return match.group(2)


def check_code(code: str) -> str:
    """Refuse code that is empty, too long or plainly not Python text."""
    if not code.strip():
        raise BadSubmission("The code is empty. Send your solution in a code block that starts with `` ```python ``.")
    size = len(code.encode("utf-8"))
    if size > MAX_CODE_BYTES:
        raise BadSubmission(f"The code is {size // 1024} KiB; the limit is {MAX_CODE_BYTES // 1024} KiB.")
    if "\x00" in code:
        raise BadSubmission("The code contains a NUL byte; send plain Python text.")
    return code
