"""torch's process-wide state (grad mode, the global generator) as it travels with every call."""

from __future__ import annotations

import base64
import contextlib
import sys
from typing import Any

from .shapes import SyncState


class SharedState:
    """torch's generator state and grad mode as both sides last agreed on them.

    The generator's state (5 KB) travels only when it changed since the last message either way.
    """

    def __init__(self) -> None:
        self.rng: bytes = b""

    def outgoing(self) -> SyncState:
        torch = sys.modules.get("torch")
        if torch is None:
            return {"grad": True, "rng": ""}
        raw = torch.get_rng_state().numpy().tobytes()
        if raw == self.rng:
            return {"grad": bool(torch.is_grad_enabled()), "rng": ""}
        self.rng = raw
        return {"grad": bool(torch.is_grad_enabled()), "rng": base64.b64encode(raw).decode()}

    def incoming(self, state: Any, *, adopt_rng: bool = True) -> None:
        """Take the other side's grad mode, and its random state when ``adopt_rng`` (learner side)."""
        torch = sys.modules.get("torch")
        if torch is None or not _valid_state(state):
            return
        torch.set_grad_enabled(state["grad"])
        if state["rng"] and not adopt_rng:
            self.rng = b""  # the other side's generator moved on: send ours again with the next call
        elif state["rng"]:
            with contextlib.suppress(Exception):
                raw = base64.b64decode(state["rng"].encode())
                torch.set_rng_state(torch.frombuffer(bytearray(raw), dtype=torch.uint8))
                self.rng = raw

    def grad_mode(self) -> bool:
        torch = sys.modules.get("torch")
        return True if torch is None else bool(torch.is_grad_enabled())

    def restore(self, grad: bool, state: Any) -> None:
        """Keep this side's random state after a reply (grader side); grad mode follows as in one program.

        A learner function that turns gradients off and leaves them off does so for the test too
        (an exercise checks exactly that); its random numbers never become the test's.
        """
        self.incoming(state, adopt_rng=False)
        torch = sys.modules.get("torch")
        if torch is not None and _valid_state(state) and state["rng"]:
            # The learner drew from the global generator: the grader's moves on too (one draw of its
            # own sequence), so a test can see the global state was used, but not steer its values.
            torch.rand(1)


def _valid_state(state: Any) -> bool:
    return (
        isinstance(state, dict) and isinstance(state.get("grad"), bool) and isinstance(state.get("rng"), str)
    )
