"""Small helpers for the words of replies, with no imports of the core (model and replies both use them)."""

from __future__ import annotations

import unicodedata

# Characters that show nothing although Unicode files them outside white space and format characters:
# the combining grapheme joiner, the Hangul and Khmer fillers, the Mongolian selectors, a blank Braille cell.
_SHOWS_NOTHING = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u2800\u3164\uffa0")


def plural(count: int, word: str, many: str | None = None) -> str:
    """Return "1 question", "2 questions" (or the irregular `many`)."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def _invisible(char: str) -> bool:
    if char.isspace() or char in _SHOWS_NOTHING:
        return True
    code = ord(char)
    if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:  # variation selectors
        return True
    # Format characters (zero-width space and joiners, word joiner, byte-order mark, soft hyphen,
    # direction marks, tags) and control characters.
    return unicodedata.category(char) in ("Cf", "Cc")


def shown(text: str) -> str:
    """Return the text without format and control characters (bidi overrides and marks, zero-width
    spaces): what a reply echoes of a person's input must not flip or hide the rest of its line."""
    return "".join(char for char in text if unicodedata.category(char) not in ("Cf", "Cc"))


def blank(text: str) -> bool:
    """Say whether the text shows nothing: empty, or only white space and invisible characters (U+200B ...)."""
    return all(_invisible(char) for char in text)
