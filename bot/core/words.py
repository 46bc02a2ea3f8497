"""Small helpers for the words of replies, with no imports of the core (model and replies both use them)."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """Return "1 question", "2 questions" (or the irregular `many`)."""
    return f"{count} {word if count == 1 else (many or word + 's')}"
