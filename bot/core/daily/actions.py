"""Action ids of daily practice, beside those of `bot.core.actions`.

A daily channel post renders like a quiz item whose session id is the post id, so its choice
buttons, menus and Answer button carry ordinary `qz:<post id>:0:<verb>` actions; the adapter (or
the service) asks `DailyService.post(post_id)` whether an id names a post. The ids below are for
controls that are not about an item.
"""

from __future__ import annotations

from dataclasses import dataclass

PREFIX = "dy"

START_REVIEW = "start"  # the reminder's Start button: begin today's review
RESET_LEECH = "unleech"  # argument: `<pack>/<question>`

VERBS = {START_REVIEW, RESET_LEECH}


@dataclass(frozen=True)
class DailyAction:
    verb: str
    argument: str = ""

    def encode(self) -> str:
        return f"{PREFIX}:{self.verb}" + (f":{self.argument}" if self.argument else "")


def make(verb: str, argument: str = "") -> str:
    return DailyAction(verb, argument).encode()


def parse(text: str) -> DailyAction | None:
    """Return the action, or None when the string is not a daily action."""
    if len(text) > 200:
        return None
    head, _, rest = text.partition(":")
    verb, _, argument = rest.partition(":")
    if head != PREFIX or verb not in VERBS:
        return None
    return DailyAction(verb, argument)
