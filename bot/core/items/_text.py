"""Small text helpers shared by the type modules and the item frame."""

from __future__ import annotations

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def letter(index: int) -> str:
    return LETTERS[index] if index < len(LETTERS) else str(index + 1)


def clip(text: str, size: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= size else flat[: size - 1] + "…"


def plural(count: int, word: str, many: str | None = None) -> str:
    """Return "1 question", "2 questions" (or the irregular `many`)."""
    return f"{count} {word if count == 1 else (many or word + 's')}"
