"""Compare a typed short answer with the accepted ones, the way a fair teacher would.

Both sides are trimmed, case-folded and their spaces collapsed; backticks and surrounding quotes
are dropped. Then both are read as a sequence of values by a small tokenizer (no `eval`, a size,
token and depth budget) and compared by value:

- numbers by value (`2.5000` is `2.5`, `5` is `5.0`), booleans in any case (`false` is `False`),
  `None`, quoted strings with either quote (`'a'` is `"a"`, and a bare `a` too), bare words
  case-folded with a leading `torch.` dropped (`bfloat16` is `torch.bfloat16`);
- lists and tuples alike, with commas or spaces between items and any spacing around `,[]()`;
  `tensor(...)` and `torch.Size(...)` read as their first argument (`dtype=`, `grad_fn=` and other
  keyword arguments are ignored);
- a single container around the whole answer may be left out on either side (`[1, 2]`,
  `tensor([[1., 2.]])` and `1 2` are the same answer), but the rest of the nesting must match
  (`[[1, 2], [3, 4]]` is not `1 2 3 4`, `(4,3) (2,3,2)` is not `4 3 2 3 2`).

A question with `exact: true` skips the value comparison.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_SPACES = re.compile(r"\s+")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf|nan", re.I)
_WORD = re.compile(r"[-+]?[\w.]+")
_WORD_CHAR = re.compile(r"[\w.]")
_STRING = re.compile(r"'([^'\\\n]*)'|\"([^\"\\\n]*)\"")
_CALLS = frozenset({"tensor", "size"})  # after `torch.`/`nn.` are dropped and case-folded
MAX_DEPTH = 8
MAX_LENGTH = 2000  # characters read as values; a longer answer is compared as text only
MAX_TOKENS = 1000

Value = float | bool | str | None | list["Value"]


@dataclass(frozen=True)
class _Tok:
    kind: str  # "value", "open", "close", "comma", "call", "other"
    text: str
    value: Value = None


class _Unreadable(Exception):
    """The text is not a sequence of values."""


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


def _word(text: str) -> str:
    word = text.casefold()
    for prefix in ("torch.", "nn."):
        word = word.removeprefix(prefix)
    return word


def _tokens(text: str) -> list[_Tok]:
    tokens: list[_Tok] = []
    pos = 0
    while pos < len(text):
        if len(tokens) >= MAX_TOKENS:
            raise _Unreadable
        char = text[pos]
        if char.isspace() or char == "`":  # Markdown code marks around a value carry no meaning
            pos += 1
            continue
        if char in "[(":
            tokens.append(_Tok("open", char))
            pos += 1
            continue
        if char in "])":
            tokens.append(_Tok("close", char))
            pos += 1
            continue
        if char == ",":
            tokens.append(_Tok("comma", char))
            pos += 1
            continue
        string = _STRING.match(text, pos)
        if string is not None:
            tokens.append(_Tok("value", string.group(0), (string.group(1) or string.group(2) or "").casefold()))
            pos = string.end()
            continue
        number = _NUMBER.match(text, pos)
        if number is not None and not _WORD_CHAR.match(text, number.end()):
            tokens.append(_Tok("value", number.group(0), float(number.group(0))))
            pos = number.end()
            continue
        word = _WORD.match(text, pos)
        if word is None or word.group(0)[0] in "-+":
            tokens.append(_Tok("other", char))  # only allowed in the skipped keyword part of a call
            pos += 1
            continue
        name = _word(word.group(0))
        pos = word.end()
        if pos < len(text) and text[pos] == "(" and name in _CALLS:
            tokens.append(_Tok("call", name))
            pos += 1
        elif name in ("true", "false"):
            tokens.append(_Tok("value", name, name == "true"))
        elif name == "none":
            tokens.append(_Tok("value", name, None))
        else:
            tokens.append(_Tok("value", name, name))
    return tokens


class _Parser:
    def __init__(self, tokens: list[_Tok]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> _Tok | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> _Tok:
        tok = self.peek()
        if tok is None:
            raise _Unreadable
        self.pos += 1
        return tok

    def items(self, closer: str | None, depth: int) -> list[Value]:
        """Read values separated by commas or spaces up to `closer` (None: the end)."""
        out: list[Value] = []
        after_comma = False
        while True:
            tok = self.peek()
            if tok is None:
                if closer is not None:
                    raise _Unreadable
                break
            if tok.kind == "close":
                if closer is None or tok.text != closer:
                    raise _Unreadable
                self.pos += 1
                break
            if tok.kind == "comma":
                if after_comma or not out:
                    raise _Unreadable
                after_comma = True
                self.pos += 1
                continue
            after_comma = False
            out.append(self.value(depth))
        return out

    def value(self, depth: int) -> Value:
        if depth > MAX_DEPTH:
            raise _Unreadable
        tok = self.take()
        if tok.kind == "value":
            return tok.value
        if tok.kind == "open":
            return self.items("]" if tok.text == "[" else ")", depth + 1)
        if tok.kind == "call":
            first = self.value(depth + 1)
            self.skip_rest_of_call()
            return first
        raise _Unreadable

    def skip_rest_of_call(self) -> None:
        """Skip `, dtype=torch.int32, grad_fn=<MulBackward0>` up to the call's `)`."""
        level = 0
        while True:
            tok = self.take()
            if tok.kind in ("open", "call"):
                level += 1
            elif tok.kind == "close":
                if level == 0:
                    return
                level -= 1


def read(text: str) -> list[Value] | None:
    """Read an answer as a sequence of values, or None when it is not one (or too long)."""
    text = text.strip()
    if not text or len(text) > MAX_LENGTH:
        return None
    try:
        parser = _Parser(_tokens(text))
        found = parser.items(None, 0)
    except _Unreadable:
        return None
    return found or None


def _bare(items: list[Value]) -> list[Value]:
    """Drop containers that hold the whole answer: `[[1, 2]]` and `1 2` are one answer."""
    while len(items) == 1 and isinstance(items[0], list):
        items = items[0]
    return items


def values(text: str) -> Value:
    """Read a number, a (nested) list, a tensor repr or a comma/space separated list; None if unreadable.

    A single scalar comes back as itself, anything else as a list with outer containers dropped.
    """
    found = read(text)
    if found is None:
        return None
    items = _bare(found)
    return items[0] if len(items) == 1 else items


def _same(a: Value, b: Value, tolerance: float) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=tolerance)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y, tolerance) for x, y in zip(a, b, strict=True))
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return a is None and b is None


def same_values(a: Value, b: Value, *, tolerance: float = 1e-6) -> bool:
    """Compare two read answers by value (see the module's docstring)."""
    left = _bare(a) if isinstance(a, list) else [a]
    right = _bare(b) if isinstance(b, list) else [b]
    return len(left) == len(right) and all(_same(x, y, tolerance) for x, y in zip(left, right, strict=True))


def matches(given: str, accepted: str, *, exact: bool = False) -> bool:
    """Say whether a typed answer says the same as one accepted answer."""
    if normalize(unwrap(given)) == normalize(unwrap(accepted)) or normalize(given) == normalize(accepted):
        return True
    if exact:
        return False
    want = read(accepted) or read(unwrap(accepted))
    if want is None:
        return False
    # `'a', 'b'` starts and ends with a quote without being quoted as a whole: try it as typed too.
    return any(got is not None and same_values(got, want) for got in (read(given), read(unwrap(given))))
