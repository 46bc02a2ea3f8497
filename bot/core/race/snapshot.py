"""What a race keeps of each item when it starts: the question as its pack had it then.

An admin may load a higher version of a pack while a race runs. The race posts, grades and reveals
each item from the copy taken at the start (kept in the race's stored state, so it outlives a
restart), never from the pack as it is now: a member who picked what was right when the round was
posted is graded right, and the options never shift under anyone. The pack is still asked whether
the item exists (an item removed mid-race ends the race early, as before). A race stored before
copies were taken has none and reads its items from the pack.

The copy holds what a race uses: the question without its hint and its choices' feedback (a race
shows neither), the pack's title and the topic's title (the round's footer). Its size is bounded:
an item whose copy is longer than `MAX_CHARS` (as JSON, counted in characters) is left out of
races, like code items; with at most `ROUNDS_MAX` rounds a race holds at most
`ROUNDS_MAX * MAX_CHARS` characters of copies.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter

from bot.core.packs.models import AnyQuestion, Pack, Question

MAX_CHARS = 16_000  # one item's copy; a prompt is at most 3,500 characters, a chat message shows about 4,000
LEFT_OUT = frozenset({"hint"})  # never shown in a race

log = logging.getLogger(__name__)
_QUESTION: TypeAdapter[AnyQuestion] = TypeAdapter(Question)


def kept(question: AnyQuestion) -> dict[str, Any]:
    """The question as a race keeps it (JSON-ready): without what a race never shows."""
    data = question.model_dump(mode="json", exclude_defaults=True, exclude=set(LEFT_OUT))
    for choice in data.get("choices", ()):
        choice.pop("feedback", None)  # a race's answer is acknowledged, never commented on
    return data


def chars(data: dict[str, Any]) -> int:
    """The length of `data` as stored (compact JSON, characters not escaped)."""
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":")))


@dataclass(frozen=True)
class ItemSnapshot:
    """One race item as it was posted: the question, and the titles its round shows."""

    question: AnyQuestion
    pack_title: str
    topic_title: str
    pack_version: int

    def to_json(self) -> dict[str, Any]:
        return {"q": kept(self.question), "pt": self.pack_title, "tt": self.topic_title, "v": self.pack_version}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ItemSnapshot:
        return cls(
            question=_QUESTION.validate_python(data["q"]),
            pack_title=str(data.get("pt", "")),
            topic_title=str(data.get("tt", "")),
            pack_version=int(data.get("v", 0)),
        )

    @classmethod
    def read(cls, data: Any) -> ItemSnapshot | None:
        """The stored snapshot, or None (the race reads the pack) when there is none or it no longer reads.

        A snapshot that a later pack format refuses must not make its race, or every running race
        loaded with it, unreadable.
        """
        if not data:
            return None
        try:
            return cls.from_json(data)
        except (ValueError, TypeError, KeyError):  # pydantic's ValidationError is a ValueError
            log.warning("a race item's snapshot does not read; the race reads its pack instead", exc_info=True)
            return None

    @classmethod
    def take(cls, pack: Pack, question: AnyQuestion) -> ItemSnapshot | None:
        """Copy the item as the race will show it; None when the copy would be over `MAX_CHARS`."""
        data = _copy(pack, question)
        if chars(data) > MAX_CHARS:
            return None
        return cls.from_json(data)  # the copy exactly as it reads back after a restart


def fits(pack: Pack, question: AnyQuestion) -> bool:
    """Say whether the item's copy stays within `MAX_CHARS` (else a race leaves the item out)."""
    return chars(_copy(pack, question)) <= MAX_CHARS


def _copy(pack: Pack, question: AnyQuestion) -> dict[str, Any]:
    return {"q": kept(question), "pt": pack.title, "tt": pack.topic_title(question.topic), "v": pack.version}
