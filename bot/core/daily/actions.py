"""Action ids of daily practice, beside those of `bot.core.actions`.

A daily channel post renders like a quiz item whose session id is the post id; its choice
buttons, menus, Answer button and form carry `dp:<post id>:0:<verb>` (`on_post`), so the
dispatcher sends them to daily practice without reading anything. Posts made before that carry
`qz:<post id>:0:<verb>` and still work (`daily.routes`). The `dy:` ids below are for controls that
are not about an item.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from bot.core import actions as ax
from bot.core.replies import Control, InputRequest

PREFIX = "dy"

START_REVIEW = "start"  # the reminder's Start button: begin today's review
RESET_LEECH = "unleech"  # argument: `<pack>/<question>`, or `#<digest>` when that is too long (`reset_leech`)
MAX_ACTION_CHARS = 100  # Discord's custom_id (Slack's action_id holds 255)
DIGEST = "#"

VERBS = {START_REVIEW, RESET_LEECH}


@dataclass(frozen=True)
class DailyAction:
    verb: str
    argument: str = ""

    def encode(self) -> str:
        return f"{PREFIX}:{self.verb}" + (f":{self.argument}" if self.argument else "")


def make(verb: str, argument: str = "") -> str:
    return DailyAction(verb, argument).encode()


def leech_digest(pack: str, question: str) -> str:
    """A short name of a leech's item, for an action id its ids would make too long."""
    return hashlib.sha256(f"{pack}/{question}".encode()).hexdigest()[:24]


def reset_leech(pack: str, question: str) -> str:
    """The Reset button's action id: the item by name when it fits every platform, else by its digest.

    Pack ids have up to 40 characters and item ids 64, so `dy:unleech:<pack>/<item>` can pass
    Discord's 100 characters; the digest is matched against the learner's leeches when pressed.
    """
    named = make(RESET_LEECH, f"{pack}/{question}")
    return named if len(named) <= MAX_ACTION_CHARS else make(RESET_LEECH, DIGEST + leech_digest(pack, question))


def parse(text: str) -> DailyAction | None:
    """Return the action, or None when the string is not a daily action."""
    if len(text) > 200:
        return None
    head, _, rest = text.partition(":")
    verb, _, argument = rest.partition(":")
    if head != PREFIX or verb not in VERBS:
        return None
    return DailyAction(verb, argument)


def on_post(action: str) -> str:
    """The id a control of a daily post carries: the quiz item's id with the post's own prefix."""
    parsed = ax.parse(action)
    return replace(parsed, prefix=ax.POST_PREFIX).encode() if parsed is not None else action


def post_control(control: Control) -> Control:
    return replace(control, action=on_post(control.action))


def post_form(form: InputRequest) -> InputRequest:
    return replace(form, action=on_post(form.action))
