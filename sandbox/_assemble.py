"""Turn a supervisor's report into a :class:`~sandbox.result.Result`."""

from __future__ import annotations

import math
import re
import signal
from typing import Protocol, cast

from pydantic import TypeAdapter, ValidationError

from ._messages import CgroupCounters, JobLimits, Report, ResultMessage
from ._scrub import scrub_result
from ._wire import unb64
from .result import ErrorInfo, Result, ResultExtra, Status, TestOutcome, flat

MIB = 1024 * 1024
LAYER_ORDER = (
    "userns", "pidns", "mountns", "ipcns", "utsns", "netns", "cgroup1:memory", "cgroup1:pids", "cgroup1:cpu",
    "cgroup1:cpuacct", "cgroup2:memory", "cgroup2:pids", "cgroup2:cpu", "rlimits", "uid", "capabilities",
    "no_new_privs", "seccomp", "landlock-fs", "landlock-net", "landlock-scope", "env", "tmpfs", "readonly_root",
    "fds", "watchdog",
)  # fmt: skip


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")  # no UTF-8 for a lone surrogate; no NUL in a database's text


def _valid(message: ResultMessage) -> ResultMessage:
    """Return a results message whose texts are valid, storable Unicode: a lone surrogate or a NUL (in a
    learner's exception text, or anything a plain run writes on its channel) becomes U+FFFD, as in its output."""
    out: dict[str, object] = {}
    for key, value in message.items():
        if isinstance(value, str):
            value = _UNSTORABLE.sub("\ufffd", value)
        elif isinstance(value, list):
            value = [_UNSTORABLE.sub("\ufffd", v) if isinstance(v, str) else v for v in value]
        out[key] = value
    return cast(ResultMessage, out)


def _text(data: str | None) -> str:
    if not data:
        return ""
    return unb64(data).decode("utf-8", "replace").replace("\x00", "\ufffd")


def _seconds(value: float) -> str:
    return f"{value:g} s"


def order_layers(layers: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Return the layer names without duplicates, in a stable, readable order."""
    rank = {name: i for i, name in enumerate(LAYER_ORDER)}
    return tuple(sorted(dict.fromkeys(layers), key=lambda n: (rank.get(n, len(rank)), n)))


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


_REPORT: TypeAdapter[Report] = TypeAdapter(Report)


def read_report(data: object) -> Report:
    """Return a template's report checked against :class:`Report` (a malformed one as a setup error)."""
    if data is None:
        return {"setup_error": "the sandbox sent no report"}
    try:
        return _REPORT.validate_python(data)
    except ValidationError as exc:
        return {"setup_error": f"a malformed report: {exc.error_count()} fields"}


class _Make(Protocol):
    def __call__(
        self,
        status: Status,
        message: str,
        error: ErrorInfo | None = None,
        outcomes: tuple[TestOutcome, ...] = ...,
    ) -> Result: ...


def assemble(report: Report, *, graded: bool, limits: JobLimits, layers: tuple[str, ...]) -> Result:
    """Decide the status and the message of one job from what its supervisor saw (no host path in them)."""
    return scrub_result(_decide(report, graded=graded, limits=limits, layers=layers))


def _decide(report: Report, *, graded: bool, limits: JobLimits, layers: tuple[str, ...]) -> Result:
    if "setup_error" in report:
        return Result(
            status="crashed",
            isolation=layers,
            message="The sandbox could not start this job; please try again.",
            extra={"detail": str(report["setup_error"])},
        )
    messages: list[ResultMessage] = [_valid(m) for m in report.get("messages") or []]
    kinds: set[str] = {m.get("op", "") for m in messages}
    cgroup: CgroupCounters = report.get("cgroup") or {}
    peak = cgroup.get("peak_bytes") or int(report.get("maxrss_kb") or 0) * 1024
    cpu_ns = cgroup.get("cpu_ns")
    if cpu_ns is None:
        cpu_ns = int(report.get("cpu_ns") or 0)
    sig = report.get("signal")
    exit_code = report.get("exit_code")
    extra: ResultExtra = {
        "signal": sig,
        "exit_code": exit_code,
        "leftovers": report.get("leftovers", 0),
        "timing": report.get("timing", {}),
    }
    tests = _tests(messages) if graded else ()

    def result(
        status: Status,
        message: str,
        error: ErrorInfo | None = None,
        outcomes: tuple[TestOutcome, ...] = tests,
    ) -> Result:
        return Result(
            status=status,
            tests=outcomes,
            error=error,
            message=message,
            stdout=_text(report.get("stdout")),
            stderr=_text(report.get("stderr")),
            truncated=bool(report.get("exceeded")),
            wall_ms=int(report.get("wall_ns", 0) // 1_000_000),
            cpu_ms=int(cpu_ns // 1_000_000),
            peak_memory_mb=math.ceil(peak / MIB) if peak else 0,
            isolation=order_layers([*layers, *(report.get("layers") or [])]),
            extra=extra,
        )

    if report.get("exceeded"):
        limit = f"the output limit ({limits.output_bytes // 1024} KiB)"
        return result(
            "output_limit", f"Output limit: {limits.output_bytes // 1024} KiB", outcomes=_over(tests, limit)
        )
    if report.get("timed_out"):
        limit = f"the time limit ({_seconds(limits.wall_s)})"
        return result("timeout", f"Time limit: {_seconds(limits.wall_s)} of wall time", outcomes=_over(tests, limit))
    if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu_ns >= limits.cpu_s * 1e9 * 0.98):
        limit = f"the CPU time limit ({_seconds(limits.cpu_s)})"
        return result("timeout", f"Time limit: {_seconds(limits.cpu_s)} of CPU time", outcomes=_over(tests, limit))
    if cgroup.get("oom_kills", 0) > 0 or "memory" in kinds:
        limit = f"the memory limit ({limits.memory_mb} MB)"
        return result("memory", f"Memory limit: {limits.memory_mb} MB", outcomes=_over(tests, limit))
    if sig is not None and "done" not in kinds:
        crashed = tuple(TestOutcome(t.name, False, _counted_out(t, "the program then crashed")) for t in tests)
        return result("crashed", f"The program crashed ({_signal_name(int(sig))}).", outcomes=crashed)
    failed_tests = tuple(TestOutcome(t.name, False, _counted_out(t, "the results could not be trusted")) for t in tests)
    problem = report.get("channel_error")
    if problem:
        return result(
            "failed" if graded else "error",
            f"The results could not be trusted: {problem}.",
            outcomes=failed_tests,
        )
    tamper = next((m for m in messages if m.get("op") == "tamper"), None)
    if tamper is not None:
        return result(
            "failed", f"The submission changed the grader ({tamper.get('what')}).", outcomes=failed_tests
        )
    err = next((m for m in messages if m.get("op") == "error"), None)
    if err is not None:
        info = ErrorInfo(
            type=flat(str(err.get("type") or "Error")) or "Error",
            message=str(err.get("message") or ""),
            line=err.get("line"),
            col=err.get("col"),
            source=err.get("source") if err.get("line") else None,
        )
        if err.get("where") == "test":
            return result("error", flat(f"The test file could not be loaded: {info.message}"), info)
        return result("error", info.describe(), info)
    if graded:
        return _graded(messages, result, kinds)
    exit_msg = next((m for m in messages if m.get("op") == "exit"), None)
    if exit_msg is not None:
        info = ErrorInfo(
            "SystemExit", f"exit status {exit_msg.get('code')}: {exit_msg.get('text', '')}".rstrip(": ")
        )
        return result("error", f"The program exited with status {exit_msg.get('code')}.", info)
    if "done" in kinds or exit_code == 0:
        return result("passed", "Ran without errors.")
    info = ErrorInfo("SystemExit", f"exit status {exit_code}")
    return result("error", f"The program exited with status {exit_code}.", info)


_ENDED = "your program ended before this test could check it"  # the grader's (bridge.PeerGone)
_DURING = "did not report a result: the program ended during this test"
_NOT_RUN = "not run: the program ended before this test"


def _counted_out(test: TestOutcome, then: str) -> str:
    """The line of a test in a job that went wrong after it ran: a pass is not counted, and says so."""
    if test.passed:
        return f"passed, but not counted: {then}"
    return test.message or _NOT_RUN


def _over(tests: tuple[TestOutcome, ...], limit: str) -> tuple[TestOutcome, ...]:
    """Every test failed, as a job over a limit passes nothing; the test the limit ended names it."""
    out = []
    for t in tests:
        ended = not t.passed and t.message in (_ENDED, _DURING)
        line = f"{limit} ended your program during this test" if ended else _counted_out(t, f"the run then went over {limit}")
        out.append(TestOutcome(t.name, False, line))
    return tuple(out)


def _tests(messages: list[ResultMessage]) -> tuple[TestOutcome, ...]:
    plan = next((m for m in messages if m.get("op") == "plan"), None)
    if plan is None:
        return ()
    ids = [str(t) for t in plan.get("tests") or []]
    reported: dict[int, TestOutcome] = {}
    for m in messages:
        i = m.get("i")
        if m.get("op") == "test" and i is not None and i not in reported:
            reported[i] = TestOutcome(m.get("name", ""), m.get("passed") is True, m.get("message", ""))
    # The first test without a line was running when the program ended, unless the grader ended the
    # job itself (out of memory: after the line of the test that ran out); the rest never ran.
    during = not any(m.get("op") == "memory" for m in messages)
    out = []
    for i, test_id in enumerate(ids):
        if i in reported:
            out.append(reported[i])
        else:
            out.append(TestOutcome(test_id.rsplit(".", 1)[-1], False, _DURING if during else _NOT_RUN))
            during = False
    return tuple(out)


def _graded(messages: list[ResultMessage], result: _Make, kinds: set[str]) -> Result:
    tests: tuple[TestOutcome, ...] = _tests(messages)
    if "plan" not in kinds:
        return result("failed", "The program ended before the tests ran.")
    if not tests:
        return result("failed", "The test file has no tests.")
    failed = sum(1 for t in tests if not t.passed)
    if failed == 0 and "done" in kinds:
        return result("passed", f"All {len(tests)} tests passed.")
    return result("failed", f"{failed} of {len(tests)} tests failed.")
