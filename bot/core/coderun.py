"""The sandbox as the core sees it: a run request, its outcome, the runner port.

Its own module, importing nothing else of the core: the question types (`items/`) grade with it,
and the repository port (`ports.py`) names packs, which are read with the question types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

TestLine = tuple[str, bool, str]  # name, passed, message

RunStatus = Literal["passed", "failed", "error", "timeout", "memory", "output_limit", "crashed", "rejected"]


@dataclass(frozen=True)
class RunRequest:
    code: str
    test: str | None = None
    owner: str | None = None
    time_s: float | None = None
    memory_mb: int | None = None


@dataclass(frozen=True)
class RunOutcome:
    """What the core needs of a sandbox result."""

    status: RunStatus
    tests: tuple[TestLine, ...] = ()
    stdout: str = ""
    stderr: str = ""
    truncated: bool = False
    wall_ms: int = 0
    peak_memory_mb: float = 0.0
    message: str = ""
    error_line: int | None = None
    error_col: int | None = None
    error_text: str = ""
    isolation: tuple[str, ...] = field(default_factory=tuple)


class CodeRunner(Protocol):
    """The sandbox as the core sees it."""

    @property
    def max_code_bytes(self) -> int:
        """The longest code it accepts: the sandbox's setting, the one home of that limit."""
        ...

    async def run(self, request: RunRequest) -> RunOutcome: ...

    async def close(self) -> None: ...
