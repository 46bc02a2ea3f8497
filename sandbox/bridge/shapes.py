"""What crosses the bridge: the messages' shapes, the budgets on them, and the errors of the bridge."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, Literal, TypedDict

MAX_DEPTH = 48
MAX_NODES = 200_000
MAX_FRAME = 32 * 1024 * 1024  # what the learner takes from the grader
MAX_REPLY_FRAME = 16 * 1024 * 1024  # what the grader takes from the learner
MAX_CONTAINERS = 400_000  # arrays and objects in one frame, counted before it is parsed
MAX_COLLISIONS = 32  # set items or dict keys of one hash value
MAX_DECODE_S = 0.5  # CPU seconds the grader spends building one frame's values
TOO_LARGE = "your function returned something too large to check"
OVERDUE = "your code did not finish within the time limit"
# Exceptions that steer the caller's control flow: from learner code they arrive as a RuntimeError.
CONTROL_FLOW = ("StopIteration", "StopAsyncIteration", "GeneratorExit", "KeyboardInterrupt", "SystemExit")
MAX_TEXT = 4000
# The learner's module data sent with a load's reply, so reading ``user_code.W`` needs no round trip.
SNAPSHOT_NODES = 20_000  # values, all globals together
SNAPSHOT_BYTES = 256 * 1024  # tensor bytes and string characters, all globals together
MAX_ITEMS = 100_000
PLAIN_FACTORIES: dict[str, type] = {"list": list, "dict": dict, "set": set, "int": int, "float": float}


class PeerGone(Exception):
    """The other process ended or broke the protocol; nothing more can be asked of it."""

    def __init__(self, ended: bool = True, text: str | None = None) -> None:
        super().__init__(
            text
            or (
                "your program ended before this test could check it"
                if ended
                else "your program sent the grader data it could not read"
            )
        )


class Refused(Exception):
    """A value that may not cross (too deep, too large, of an unknown kind)."""


class TooLarge(Refused):
    """A value over one of the grader's budgets (size, depth, nodes, decode time)."""

    def __init__(self) -> None:
        super().__init__(TOO_LARGE)


class RemoteControlFlow(RuntimeError):
    """A control-flow exception (``StopIteration`` ...) raised by learner code, as a plain error."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"your code raised {kind}" + (f": {message}" if message else ""))
        self.kind = kind


# --- wire shapes ---------------------------------------------------------------------------------
Op = Literal["load", "get", "call", "grad", "reply", "release"]


class SyncState(TypedDict):
    """Process-wide torch state that travels with every call."""

    grad: bool
    rng: str


class Request(TypedDict, total=False):
    """One call to the other side (``op`` is the discriminator)."""

    op: Op
    state: SyncState
    h: int
    name: str
    args: Any
    kwargs: Any
    code: str
    classes: str
    main: bool


class ErrorFields(TypedDict, total=False):
    """An exception raised on the other side, as data."""

    type: str
    bases: list[str]
    message: str
    args: Any
    line: int | None
    col: int | None
    source: str | None
    exit: Any


class Reply(TypedDict, total=False):
    """The answer to a request: a value (or an error), the arguments' new state, printed text."""

    op: Op
    ok: bool
    value: Any
    back: Any
    exc: ErrorFields
    out: str
    state: SyncState
    globals: list[Any]  # a load's: [name, value] for the module's globals that are small plain data


# --- helpers ---------------------------------------------------------------------------------------
def is_tensor(value: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def clip(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def close_quietly(*fds: int) -> None:
    """Close descriptors, ignoring those already closed."""
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
