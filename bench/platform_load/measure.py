"""Measurements: the learners' tally, percentiles, and each bot process's memory and CPU from /proc."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Tally:
    acks: list[float] = field(default_factory=list)  # seconds, one per answer acknowledged
    code_acks: list[float] = field(default_factory=list)  # of those, the code answers' (to see where the tail lives)
    other_acks: list[float] = field(default_factory=list)  # and the rest
    replies: list[float] = field(default_factory=list)  # seconds from sending an answer to the next item shown
    problems: dict[str, int] = field(default_factory=dict)  # what went wrong, by kind (for the report)
    answers_sent: int = 0
    lost: int = 0  # no ack within ACK_WAIT_S
    http_errors: int = 0  # a non-200 answer to a learner's request, or a connection error
    stalls: int = 0  # no next item within NEXT_WAIT_S
    code_stalls: int = 0  # of the stalls after an answer, those after a code answer
    refused: int = 0  # acknowledged, then answered "That question was already answered" by the bot
    busy: int = 0  # code acknowledged, then answered "The sandbox is busy; try again" (not graded, by design)
    failed: int = 0  # acknowledged, then answered with the bot's apology for an error ("something went wrong")
    reshown: int = 0  # the answered item posted again, graded (its message was not known to the process yet)
    quizzes: int = 0
    code_answers: int = 0
    other_requests: int = 0  # starts, form openings: acknowledged, not answers

    def answered(self, seconds: float, code: bool = False) -> None:
        self.acks.append(seconds)
        (self.code_acks if code else self.other_acks).append(seconds)

    def problem(self, kind: str) -> None:
        self.problems[kind] = self.problems.get(kind, 0) + 1


def percentile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, round(q * len(sorted_values) + 0.5) - 1))
    return sorted_values[index]


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of one process, in kB (empty if it is gone)."""
    out: dict[str, int] = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(("VmRSS:", "VmHWM:")):
                out[line.split(":")[0]] = int(line.split()[1])
    except OSError:
        pass
    return out


def _cpu_ticks(pid: int, fields: slice) -> int:
    """The sum of these CPU time fields of /proc/<pid>/stat, counted after the command's name (0 if the process is gone)."""
    try:
        values = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[fields]
    except OSError:
        return 0
    return sum(int(v) for v in values)


OWN = slice(11, 13)  # utime, stime
WITH_REAPED = slice(11, 15)  # utime, stime, cutime, cstime


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process so far (0 if it is gone)."""
    return _cpu_ticks(pid, OWN) / os.sysconf("SC_CLK_TCK")


def runqueue_wait_seconds(pid: int) -> float:
    """Time the process's threads spent runnable but waiting for a CPU so far (/proc/<pid>/task/*/schedstat)."""
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0
    for task in tasks:
        try:
            total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return total / 1e9


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of the process's descendants (its sandbox pool), with what each has reaped of its own children.

    A pool's supervisors and job processes live for one job: when one ends, its time (and that of
    the children it reaped) moves into its parent's cutime and cstime. Summed over the tree still
    alive, those fields keep it; the difference of two readings is what the pool spent between them.
    """
    return sum(_cpu_ticks(child, WITH_REAPED) for child in descendants(pid)) / os.sysconf("SC_CLK_TCK")


def host_ticks() -> tuple[int, int]:
    """The host's CPU ticks so far, all and busy (everything but idle and iowait), from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(values), sum(values) - values[3] - values[4]


def descendants(pid: int) -> list[int]:
    found: list[int] = []
    todo = [pid]
    while todo:
        current = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                children = Path(f"/proc/{current}/task/{task}/children").read_text().split()
            except OSError:
                continue
            for child in children:
                found.append(int(child))
                todo.append(int(child))
    return found


def pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def maps(pid: int, fragment: str) -> bool:
    """Whether a file whose path holds `fragment` is mapped into the process (a shared library it imported)."""
    try:
        return fragment in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def has_torch(pid: int) -> bool:
    """Whether torch's shared libraries are mapped into the process (i.e. it imported torch)."""
    return maps(pid, "libtorch")


class MemorySampler:
    """Samples each bot process's RSS (and its VmHWM) and its sandbox pool's total PSS."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.rss_peak_kb = dict.fromkeys(pids, 0)
        self.hwm_kb = dict.fromkeys(pids, 0)
        self.pool_peak_kb = dict.fromkeys(pids, 0)
        self.torch = dict.fromkeys(pids, False)
        self.uvloop = dict.fromkeys(pids, False)

    def sample(self, *, pools: bool) -> None:
        for pid in self.pids:
            status = proc_status(pid)
            self.rss_peak_kb[pid] = max(self.rss_peak_kb[pid], status.get("VmRSS", 0))
            self.hwm_kb[pid] = max(self.hwm_kb[pid], status.get("VmHWM", 0))
            if pools:
                self.pool_peak_kb[pid] = max(self.pool_peak_kb[pid], sum(pss_kb(c) for c in descendants(pid)))

    async def run(self, stop: asyncio.Event) -> None:
        n = 0
        while not stop.is_set():
            self.sample(pools=n % 4 == 0)  # the pool's smaps are costlier to read: every 2 s
            n += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.5)
        self.sample(pools=True)
        for pid in self.pids:
            self.torch[pid] = has_torch(pid)
            self.uvloop[pid] = maps(pid, "/uvloop/")
