"""Rotate a channel's items through its packs: no repeats until every item was posted."""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence

ItemKey = tuple[str, str]  # (pack id, question id)


def pick_item(candidates: Sequence[ItemKey], used: Collection[ItemKey], *, seed: str) -> tuple[ItemKey, bool] | None:
    """Return the next item and whether it starts a new round, or None when there are no candidates.

    `used` holds the items posted in the current round. The choice is random but fixed by
    `seed` (the channel and day), so any process picks the same item.
    """
    if not candidates:
        return None
    taken = set(used)
    fresh = sorted(c for c in set(candidates) if c not in taken)
    new_round = not fresh
    pool = fresh or sorted(set(candidates))
    return random.Random(seed).choice(pool), new_round
