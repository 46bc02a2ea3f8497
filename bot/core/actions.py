"""Action ids: the strings controls carry, naming the session, the item and what to do.

Format: `<prefix>:<session>:<position>[:<tag>]:<verb>[:<argument>]`, at most about 40 characters, so it fits
Discord's custom_id (100) and Slack's action_id (255). The prefix names the feature that answers
it (the dispatcher's action table): `qz` a quiz, `dp` a channel's daily post, `pk` a pack admin's
confirmation, `md` a my-data confirmation. Posts and confirmations sent before they had their own
prefix carry `qz` (a post's id in the session slot, `-` for a confirmation) and still work.
"""

from __future__ import annotations

from .record import record

PREFIX = "qz"
POST_PREFIX = "dp"  # a channel's daily post (its id in the session slot)
PACK_PREFIX = "pk"  # a pack admin's confirmations (no session)
DATA_PREFIX = "md"  # my-data confirmations (no session)
PREFIXES = (PREFIX, POST_PREFIX, PACK_PREFIX, DATA_PREFIX)

CHOOSE = "c"  # a choice button: argument is the displayed index
MULTI = "m"  # a multi-select: values are displayed indices
BLANK = "b"  # a blank's menu: argument is the blank number, value the option index
CHECK = "k"  # grade the selections (blanks, select-all)
ANSWER = "a"  # open the answer form
SHORT_FORM = "fs"  # a submitted short answer: value is the text
CODE_FORM = "fc"  # a submitted code answer: value is the code (slow: runs the sandbox)
HINT = "h"
SKIP = "s"
STOP = "x"
RESTART = "r"
CURRENT = "v"  # show the item again (the Resume button)
REMOVE_PACK = "pr"  # an admin confirmed removing the pack named by the argument
CANCEL = "n"  # an admin changed their mind
LOAD_CONVERTED = "cl"  # an admin loads the converted pack kept under the argument's key
DROP_CONVERTED = "cn"  # an admin discards it
LOAD_PASSING = "cp"  # an admin loads the questions of the converted pack that passed their proof
DELETE_DATA = "dx"  # confirmed: delete everything kept about the user named by the argument
KEEP_DATA = "dk"  # not confirmed: nothing is deleted

TAG_LENGTH = 8  # a tag is an `ItemType.seen` digest: 8 hex digits, never a verb
NO_SESSION = "-"  # the session part of an action that belongs to no quiz (admin confirmations)

VERBS = {CHOOSE, MULTI, BLANK, CHECK, ANSWER, SHORT_FORM, CODE_FORM, HINT, SKIP, STOP, RESTART, CURRENT, REMOVE_PACK, CANCEL,
         LOAD_CONVERTED, DROP_CONVERTED, LOAD_PASSING, DELETE_DATA, KEEP_DATA}


@record
class Action:
    session_id: str
    position: int
    verb: str
    argument: str = ""
    prefix: str = PREFIX
    tag: str = ""  # what the control answered as it was shown (a daily post's choice: `daily.shown`); "" none

    def encode(self) -> str:
        tail = f":{self.argument}" if self.argument else ""
        tag = f"{self.tag}:" if self.tag else ""
        return f"{self.prefix}:{self.session_id}:{self.position}:{tag}{self.verb}{tail}"


def make(session_id: str, position: int, verb: str, argument: str | int = "", *, prefix: str = PREFIX) -> str:
    """`Action(...).encode()` without building the Action: every item shown makes several (a dozen per answer)."""
    if argument == "":
        return f"{prefix}:{session_id}:{position}:{verb}"
    return f"{prefix}:{session_id}:{position}:{verb}:{argument}"


def admin(verb: str, argument: str, *, prefix: str) -> str:
    """An action id for a control that belongs to no quiz, answered by the feature `prefix` names."""
    return make(NO_SESSION, 0, verb, argument, prefix=prefix)


def prefix_of(text: str) -> str:
    """The feature an action id belongs to: the part before its first colon."""
    return text.partition(":")[0]


def parse(text: str, *, prefix: str | None = PREFIX) -> Action | None:
    """Return the action, or None when the string is not one of ours (`prefix=None`: any of `PREFIXES`)."""
    parts = text.split(":")
    tag = ""
    if len(parts) in (5, 6) and parts[3] not in VERBS and len(parts[3]) == TAG_LENGTH:  # `<tag>:<verb>`: see `Action.tag`
        tag = parts.pop(3)
    wanted = PREFIXES if prefix is None else (prefix,)
    if len(parts) not in (4, 5) or parts[0] not in wanted or parts[3] not in VERBS:
        return None
    try:
        position = int(parts[2])
    except ValueError:
        return None
    return Action(parts[1], position, parts[3], parts[4] if len(parts) == 5 else "", parts[0], tag)


def is_slow(text: str) -> bool:
    """Say whether handling this action may take seconds (acknowledge it first)."""
    action = parse(text, prefix=None)
    return action is not None and action.verb == CODE_FORM
