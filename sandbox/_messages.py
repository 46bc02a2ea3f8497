"""The sandbox's internal messages, each with one discriminator key: ``op``.

Three conversations, all framed by ``_wire`` (a length, then JSON) except the results channel
(one JSON line per message):

- bot <-> template: :class:`JobFrame`, ``{"op": "stop"}``, ``{"op": "ping"}``; the template
  answers :class:`TemplateReady`, :class:`Started`, :class:`Done`, ``{"op": "log"}``,
  ``{"op": "pong"}`` or ``{"op": "failed"}``;
- supervisor -> template: :class:`WorkerReady`, then one :class:`Report`;
- grader -> supervisor (the results channel): :class:`ResultMessage` lines carrying the nonce.

The grader and the learner process talk with ``bridge``'s ``Request``/``Reply``.

:class:`JobLimits` is what one job runs under, built by the bot side and handed, typed, to the
supervisor and the job processes (over the wire as its dict form).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# pydantic reads these shapes to check a report (``_assemble.read_report``): before Python 3.12 it
# needs typing_extensions' TypedDict.
from typing_extensions import TypedDict


class LimitsWire(TypedDict):
    """The JSON form of :class:`JobLimits`."""

    wall_s: float
    cpu_s: float
    memory_mb: int
    output_bytes: int
    file_bytes: int
    open_files: int
    pids: int
    data_bytes: int | None


@dataclass(frozen=True)
class JobLimits:
    """The limits one job runs under.

    ``memory_mb`` and ``wall_s`` are the job's own (a pack item may lower them); ``data_bytes``
    caps the job's data segment where no cgroup limits memory (None with cgroups).
    """

    wall_s: float
    cpu_s: float
    memory_mb: int
    output_bytes: int
    file_bytes: int = 16 * 1024 * 1024
    open_files: int = 256
    pids: int = 64
    data_bytes: int | None = None

    def to_wire(self) -> LimitsWire:
        """Return the JSON form."""
        return {
            "wall_s": self.wall_s,
            "cpu_s": self.cpu_s,
            "memory_mb": self.memory_mb,
            "output_bytes": self.output_bytes,
            "file_bytes": self.file_bytes,
            "open_files": self.open_files,
            "pids": self.pids,
            "data_bytes": self.data_bytes,
        }

    @classmethod
    def from_wire(cls, data: LimitsWire) -> JobLimits:
        """Build from the JSON form (unknown keys are ignored)."""
        data_bytes = data.get("data_bytes")
        return cls(
            wall_s=float(data["wall_s"]),
            cpu_s=float(data["cpu_s"]),
            memory_mb=int(data["memory_mb"]),
            output_bytes=int(data["output_bytes"]),
            file_bytes=int(data["file_bytes"]),
            open_files=int(data["open_files"]),
            pids=int(data["pids"]),
            data_bytes=int(data_bytes) if data_bytes is not None else None,
        )


class PreparedTest(TypedDict):
    """What the grader needs of a test module, computed on the bot's side."""

    classes: str | None  # the test cut to its imports and shared classes (None: it shares none)
    shared: list[str]  # the names of those classes: the only classes of the test the grader rebuilds
    program: bool  # it grades a whole program (``# sandbox: program``)
    code: str | None  # base64 of the marshalled code object; None when it does not compile
    magic: str  # the bytecode magic number of the interpreter that compiled it (hex)
    path: str  # the file name the code object was compiled for


class JobFrame(TypedDict):
    """bot -> template: run one job on a slot."""

    op: Literal["job"]
    id: str
    slot: int
    code: str
    test: str | None
    prepared: PreparedTest | None  # the test's parse, done once per test source (``_testprep``)
    limits: LimitsWire


class TemplateReady(TypedDict, total=False):
    """template -> bot: warm and isolated (the first frame)."""

    op: Literal["ready"]
    pid: int
    layers: list[str]
    threads: int
    seconds: float
    root_dir: str | None
    scratch: str
    seccomp: bool
    landlock_abi: int
    namespaces: bool
    workers: int
    huge_pages_mb: int
    dynamo_loaded: bool  # torch._dynamo imported while warming (``_warm.spare_dynamo`` keeps it out)


class Started(TypedDict):
    """template -> bot: a job was handed to a worker."""

    op: Literal["started"]
    id: str
    pid: int
    cgroup: int  # the index of the worker's cgroup (-1: none)


class JobSpec(TypedDict):
    """supervisor -> job process: what to run, and the nonce its results lines carry."""

    code: str
    test: str | None
    prepared: PreparedTest | None
    nonce: str
    workdir: str
    wall_s: float  # the job's wall limit
    ends: float  # when it is reached (time.monotonic()): the grader stops waiting for the learner before


class WorkerReady(TypedDict):
    """supervisor -> template: the job processes are isolated and waiting."""

    op: Literal["ready"]
    layers: list[str]


class Report(TypedDict, total=False):
    """supervisor -> template: what happened to the job (or ``setup_error`` when it never ran)."""

    op: Literal["report"]
    setup_error: str
    layers: list[str]
    stdout: str
    stderr: str
    exceeded: bool
    timed_out: bool
    wall_ns: int
    exit_code: int | None
    signal: int | None
    cpu_ns: int | None
    maxrss_kb: int | None
    messages: list[ResultMessage]
    channel_error: str | None
    early: bool
    timing: dict[str, float | None]
    leftovers: int  # added by the template: processes its sweep of the slot killed
    cgroup: CgroupCounters  # added by the template: the slot's counters for this job


class CgroupCounters(TypedDict, total=False):
    """A slot's cgroup counters over one job (None, or missing, where the kernel offers no such counter)."""

    peak_bytes: int | None
    cpu_ns: int | None
    oom_kills: int


class Done(TypedDict):
    """template -> bot: a job's report."""

    op: Literal["done"]
    id: str
    report: Report


ResultOp = Literal["plan", "test", "error", "memory", "exit", "done", "tamper"]


class ResultMessage(TypedDict, total=False):
    """grader -> supervisor, one JSON line on the results channel; ``n`` is the job's nonce."""

    n: str
    op: ResultOp
    tests: list[str]
    i: int
    name: str
    passed: bool
    message: str
    type: str
    line: int | None
    col: int | None
    source: str | None
    where: str
    exit: int
    code: int
    text: str
    what: str
