"""Compare a typed short answer with the accepted ones, the way a fair teacher would.

Both sides are trimmed, case-folded and their spaces collapsed; backticks and surrounding quotes
are dropped. When an accepted answer is a number, a list of numbers or a tensor's repr, the given
answer is compared by value: `tensor([1., 1.])`, `[1, 1]` and `1, 1` are the same answer, and
`2.5000` equals `2.5`. A question with `exact: true` skips the value comparison.
"""

from __future__ import annotations

import math
import re

_SPACES = re.compile(r"\s+")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf|nan")
_TOKEN = re.compile(r"\s*(\[|\]|,|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf|nan)")
_TENSOR_TAIL = re.compile(r",\s*(?:dtype|device|requires_grad|grad_fn|size)\s*=.*$", re.S)
MAX_DEPTH = 8
MAX_LENGTH = 2000

Nested = float | list["Nested"]


def normalize(text: str) -> str:
    """Trim, case-fold and collapse runs of white space."""
    return _SPACES.sub(" ", text.strip()).casefold()


def unwrap(text: str) -> str:
    """Drop surrounding backticks and quotes that a learner types around an answer."""
    text = text.strip()
    for _ in range(3):
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "`'\"":
            text = text[1:-1].strip()
        elif text.startswith("```") and text.endswith("```") and len(text) >= 6:
            text = text[3:-3].strip()
        else:
            break
    return text


def values(text: str) -> Nested | None:
    """Read a number, a (nested) list of numbers, a tensor repr or a comma/space separated list."""
    text = text.strip()
    if not text or len(text) > MAX_LENGTH:
        return None
    if text.startswith("tensor(") and text.endswith(")"):
        text = _TENSOR_TAIL.sub("", text[len("tensor(") : -1]).strip()
    if _NUMBER.fullmatch(text):
        return float(text)
    if text.startswith("["):
        return _nested(text)
    words = [w for w in re.split(r"[,\s]+", text) if w]
    if len(words) > 1 and all(_NUMBER.fullmatch(w) for w in words):
        return [float(w) for w in words]
    return None


def _nested(text: str) -> Nested | None:
    tokens: list[str] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            if text[pos:].strip() == "":
                break
            return None
        tokens.append(match.group(1))
        pos = match.end()
    stack: list[list[Nested]] = []
    result: Nested | None = None
    expect_value = True
    for word in tokens:
        if word == "[":
            if len(stack) >= MAX_DEPTH or not expect_value:
                return None
            stack.append([])
        elif word == "]":
            if not stack:
                return None
            done = stack.pop()
            if stack:
                stack[-1].append(done)
            else:
                result = done
            expect_value = False
        elif word == ",":
            expect_value = True
        else:
            if not stack or not expect_value:
                return None
            stack[-1].append(float(word))
            expect_value = False
    return result if not stack else None


def _flat(value: Nested) -> list[float]:
    if isinstance(value, float):
        return [value]
    return [x for v in value for x in _flat(v)]


def same_values(a: Nested, b: Nested, *, tolerance: float = 1e-6) -> bool:
    """Compare by value; nesting must match when both sides have it, else the flat values do."""

    def close(x: float, y: float) -> bool:
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        return math.isclose(x, y, rel_tol=1e-6, abs_tol=tolerance)

    def nested(x: Nested) -> bool:
        return isinstance(x, list) and any(isinstance(v, list) for v in x)

    if nested(a) and nested(b):
        if isinstance(a, float) or isinstance(b, float) or len(a) != len(b):
            return False
        return all(same_values(x, y, tolerance=tolerance) for x, y in zip(a, b, strict=True))
    fa, fb = _flat(a), _flat(b)
    return len(fa) == len(fb) and all(close(x, y) for x, y in zip(fa, fb, strict=True))


def matches(given: str, accepted: str, *, exact: bool = False) -> bool:
    """Say whether a typed answer says the same as one accepted answer."""
    if normalize(unwrap(given)) == normalize(unwrap(accepted)) or normalize(given) == normalize(accepted):
        return True
    if exact:
        return False
    want = values(unwrap(accepted))
    if want is None:
        return False
    got = values(unwrap(given))
    return got is not None and same_values(got, want)
