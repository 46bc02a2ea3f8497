"""The sandbox's answer to one job: a frozen value, as DESIGN.md's "Sandbox" section prints it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypedDict, get_args

Status = Literal["passed", "failed", "error", "timeout", "memory", "output_limit", "crashed", "rejected"]
STATUSES: tuple[str, ...] = get_args(Status)


class TestDict(TypedDict):
    """The JSON form of a :class:`TestOutcome`."""

    name: str
    passed: bool
    message: str


class ErrorDict(TypedDict):
    """The JSON form of an :class:`ErrorInfo`."""

    type: str
    message: str
    line: int | None
    col: int | None
    source: str | None


class ResultDict(TypedDict):
    """The JSON form of a :class:`Result` (DESIGN.md's, plus ``error`` and ``message``)."""

    status: Status
    tests: list[TestDict]
    stdout: str
    stderr: str
    truncated: bool
    wall_ms: int
    cpu_ms: int
    peak_memory_mb: int
    isolation: list[str]
    error: ErrorDict | None
    message: str


class ResultExtra(TypedDict, total=False):
    """What the sandbox noted about a job beyond its result, for operators and benchmarks."""

    detail: str  # why the sandbox could not start the job
    signal: int | None
    exit_code: int | None
    leftovers: int  # processes the slot's sweep killed after the job
    timing: dict[str, float | None]  # monotonic stamps of the job's stages


def _no_extra() -> ResultExtra:
    return {}


@dataclass(frozen=True, slots=True)
class TestOutcome:
    """One test: its name as it stands after the run, whether it passed, and the failure message."""

    __test__ = False  # not a pytest test class

    name: str
    passed: bool
    message: str = ""

    def to_dict(self) -> TestDict:
        """Return the JSON form."""
        return {"name": self.name, "passed": self.passed, "message": self.message}


def flat(text: str) -> str:
    """Return ``text`` on one line (its lines joined by a space), without control characters."""
    joined = " ".join(part.strip() for part in text.splitlines() if part.strip())
    return "".join(c for c in joined if c >= " " and not "\x7f" <= c <= "\x9f")


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """What the learner sees instead of a traceback: a syntax error or an exception in their code.

    ``line`` and ``col`` are 1-based positions in ``user_code.py``; ``None`` when the error did not
    happen on a line of the learner's code. ``source`` is the text of that line (for a caret under
    ``col``), ``None`` without a line.
    """

    type: str
    message: str
    line: int | None = None
    col: int | None = None
    source: str | None = None

    def to_dict(self) -> ErrorDict:
        """Return the JSON form."""
        return {
            "type": self.type,
            "message": self.message,
            "line": self.line,
            "col": self.col,
            "source": self.source,
        }

    def describe(self) -> str:
        """Return one line such as ``NameError at line 3: name 'x' is not defined``."""
        where = ""
        if self.line is not None:
            where = f" at line {self.line}" + (f", column {self.col}" if self.col is not None else "")
        text = f"{self.type}{where}"
        return flat(f"{text}: {self.message}" if self.message else text)


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of one job.

    ``status`` is one of :data:`STATUSES`. ``tests`` is empty for a plain run and for a submission
    that could not be loaded. ``isolation`` names the layers that were active for this job.
    ``message`` is a one-line human summary, e.g. "Time limit: 10 s of wall time".
    """

    status: Status
    tests: tuple[TestOutcome, ...] = ()
    stdout: str = ""
    stderr: str = ""
    truncated: bool = False
    wall_ms: int = 0
    cpu_ms: int = 0
    peak_memory_mb: int = 0
    isolation: tuple[str, ...] = ()
    error: ErrorInfo | None = None
    message: str = ""
    extra: ResultExtra = field(default_factory=_no_extra, compare=False, repr=False)

    @property
    def ok(self) -> bool:
        """Return True when the job passed."""
        return self.status == "passed"

    def to_dict(self) -> ResultDict:
        """Return DESIGN.md's result JSON plus the ``error`` and ``message`` keys."""
        return {
            "status": self.status,
            "tests": [t.to_dict() for t in self.tests],
            "stdout": self.stdout,
            "stderr": self.stderr,
            "truncated": self.truncated,
            "wall_ms": self.wall_ms,
            "cpu_ms": self.cpu_ms,
            "peak_memory_mb": self.peak_memory_mb,
            "isolation": list(self.isolation),
            "error": self.error.to_dict() if self.error is not None else None,
            "message": self.message,
        }

    @classmethod
    def rejected(cls, message: str) -> Result:
        """Return a result for a job that was not run."""
        return cls(status="rejected", message=message)
