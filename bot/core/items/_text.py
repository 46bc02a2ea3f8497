"""Small text helpers shared by the type modules and the item frame."""

from __future__ import annotations

from bot.core.replies import plural

__all__ = ["clip", "letter", "plural"]

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def letter(index: int) -> str:
    return LETTERS[index] if index < len(LETTERS) else str(index + 1)


def clip(text: str, size: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= size else flat[: size - 1] + "…"


