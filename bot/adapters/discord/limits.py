"""Discord's size limits, and cutting text to them with a visible note instead of an API error."""

from __future__ import annotations

MESSAGE_CONTENT = 2000
EMBEDS_PER_MESSAGE = 10
EMBED_TITLE = 256
EMBED_DESCRIPTION = 4096
EMBED_FIELDS = 25
FIELD_NAME = 256
FIELD_VALUE = 1024
EMBED_FOOTER = 2048
EMBED_TOTAL = 6000
ROWS = 5
ROW_BUTTONS = 5
SELECT_OPTIONS = 25
BUTTON_LABEL = 80
OPTION_LABEL = 100
OPTION_VALUE = 100
PLACEHOLDER = 150
CUSTOM_ID = 100
MODAL_TITLE = 45
INPUT_LABEL = 45
INPUT_VALUE = 4000
INPUT_PLACEHOLDER = 100
CHOICE_NAME = 100
MAX_PACK_BYTES = 5 * 1024 * 1024  # an attached pack is downloaded only up to this size
AUTOCOMPLETE_CHOICES = 25

CUT_NOTE = "\n… _(cut to fit Discord's limits)_"


def size(text: str) -> int:
    """Measure text as Discord does at worst: in UTF-16 code units (an emoji may count twice)."""
    if text.isascii():  # most texts, told by a flag CPython keeps on every string: one unit a character
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def _head(text: str, budget: int) -> str:
    """Return the longest prefix of `text` whose size is at most `budget`."""
    if size(text) <= budget:
        return text
    head = text[:budget]  # code points <= code units, so this is at most one unit per char too long
    while head and size(head) > budget:
        head = head[: -max(1, (size(head) - budget) // 2)]
    return head


def clip_plain(text: str, limit: int) -> str:
    """Cut a one-line label to `limit`, ending it with an ellipsis when cut."""
    flat = " ".join(text.split())
    if size(flat) <= limit:
        return flat
    return _head(flat, limit - 1).rstrip() + "…"


def clip(markdown: str, limit: int, note: str = CUT_NOTE) -> str:
    """Cut Markdown to `limit`, at a line end when one is near, closing an open code fence.

    The result ends with `note` when anything was cut, so the reader knows.
    """
    if size(markdown) <= limit:
        return markdown
    if limit <= size(note) + 8:
        return _head(markdown, limit)
    budget = limit - size(note) - 4  # room for a closing fence
    head = _head(markdown, budget)
    newline = head.rfind("\n")
    if newline > len(head) // 2:
        head = head[:newline]
    if head.count("```") % 2 == 1:
        head = head.rstrip("\n") + "\n```"
    return head + note
