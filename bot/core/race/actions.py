"""Action ids of race controls: `rc:<race>:<round>:<verb>[:<argument>]`.

They fit Discord's custom_id (100) and Slack's action_id (255). The round number makes a click on
an old round's message arrive as a late answer ("round closed") instead of counting in a new one.
"""

from __future__ import annotations

from dataclasses import dataclass

PREFIX = "rc"

CHOOSE = "c"  # a choice button: argument is the displayed index
MULTI = "m"  # the select-all menu: values are displayed indices (one submission answers)
BLANK = "b"  # a blank's menu: argument is the blank number, value the option index (kept as a draft)
CHECK = "k"  # submit the blanks picked so far
ANSWER = "a"  # open the short-answer form
SHORT_FORM = "fs"  # a submitted short answer: value is the text
STOP = "x"  # stop the race (starter or admin)

VERBS = frozenset({CHOOSE, MULTI, BLANK, CHECK, ANSWER, SHORT_FORM, STOP})
MAX_ACTION_CHARS = 100


@dataclass(frozen=True)
class RaceAction:
    race_id: str
    round: int
    verb: str
    argument: str = ""

    def encode(self) -> str:
        tail = f":{self.argument}" if self.argument else ""
        return f"{PREFIX}:{self.race_id}:{self.round}:{self.verb}{tail}"


def make(race_id: str, round_index: int, verb: str, argument: str | int = "") -> str:
    return RaceAction(race_id, round_index, verb, str(argument)).encode()


def parse(text: str) -> RaceAction | None:
    """Return the action, or None when the string is not a race action."""
    if len(text) > MAX_ACTION_CHARS:
        return None
    parts = text.split(":")
    if len(parts) not in (4, 5) or parts[0] != PREFIX or parts[3] not in VERBS:
        return None
    if not parts[2].isdigit():
        return None
    return RaceAction(parts[1], int(parts[2]), parts[3], parts[4] if len(parts) == 5 else "")


def is_race_action(text: str) -> bool:
    """Say whether the adapter should hand this action to the race service (not the quiz service)."""
    return text.startswith(PREFIX + ":") and parse(text) is not None
