"""The pool as the bot uses it: lifetime, admission, one job per learner, dead workers, degraded hosts."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import secrets
import signal
import threading
import time
from pathlib import Path

import pytest

from sandbox import IsolationUnavailable, Result, Sandbox, SandboxConfig, SandboxNotStarted
from tests.sandbox.sandbox_support import SEED_SOLUTION, SEED_TEST, Pool

SLEEPER = "import time\ntime.sleep(1.0)\nprint('done')\n"
SMALL = {"workers": 1, "wall_s": 3.0, "memory_mb": 256}


async def test_lifetime_and_warning_when_never_closed() -> None:
    sb = Sandbox(SandboxConfig(**SMALL))  # type: ignore[arg-type]
    with pytest.raises(SandboxNotStarted):
        await sb.run("print(1)")
    async with sb:
        result = await sb.run("print(6 * 7)")
        assert (result.status, result.stdout) == ("passed", "42\n")
        assert set(result.to_dict()) == {
            "status",
            "tests",
            "stdout",
            "stderr",
            "truncated",
            "wall_ms",
            "cpu_ms",
            "peak_memory_mb",
            "isolation",
            "error",
            "message",
        }
        template = sb.template_pid
        assert template is not None
        with pytest.warns(ResourceWarning, match="unclosed"):
            sb.__del__()  # what the garbage collector would do to a forgotten sandbox
        for _ in range(300):  # the warning path kills the template at once (teardown is slow on a busy host)
            stat = Path(f"/proc/{template}/stat")
            if not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
                break
            await asyncio.sleep(0.05)
        else:
            pytest.fail("the template of an unclosed sandbox kept running")
    with pytest.raises(SandboxNotStarted):
        await sb.run("print(1)")
    await sb.close()  # closing twice is fine


def test_a_full_queue_rejects_at_once_with_a_retry_hint(clean_pool: Pool) -> None:
    started = time.monotonic()
    results = clean_pool.gather(*[(SLEEPER, {}) for _ in range(5)])  # 2 workers + 2 waiting + 1 too many
    statuses = sorted(r.status for r in results)
    assert statuses == ["passed", "passed", "passed", "passed", "rejected"], results
    rejected = next(r for r in results if r.status == "rejected")
    assert re.fullmatch(r"busy, try again in \d+ s", rejected.message)
    assert time.monotonic() - started < 60


def test_a_job_that_would_wait_too_long_is_turned_away_while_the_queue_has_room() -> None:
    """A pool of one worker, room for eight to wait, 0.5 s of waiting allowed; jobs of about 1 s."""
    pool = Pool(SandboxConfig(**{**SMALL, "queue": 8, "max_wait_s": 0.5}))  # type: ignore[arg-type]
    try:
        first, second = pool.gather((SLEEPER, {}), (SLEEPER, {}))
        assert first.status == "passed"
        assert second.status == "rejected" and second.message == "busy, try again in 1 s", second
        assert pool.run("print(2)").status == "passed"  # a worker free again: no wait, no refusal
    finally:
        pool.close()


NICENESS = (
    "import os\n"
    "print('nice', os.nice(0))\n"
    "try:\n    os.setpriority(os.PRIO_PROCESS, 0, 0)\n"
    "except OSError as exc:\n    print('refused', exc.errno)\n"
    "else:\n    print('raised to', os.nice(0))\n"
)


def test_jobs_stand_back_for_the_bot_and_cannot_step_forward() -> None:
    """With nice 10 the template and every job run 10 steps nicer than the bot; their cgroups weigh as much."""
    pool = Pool(SandboxConfig(**{**SMALL, "nice": 10}))  # type: ignore[arg-type]
    try:
        nicer = min(19, os.getpriority(os.PRIO_PROCESS, 0) + 10)
        template = pool.sb.template_pid
        assert template is not None and os.getpriority(os.PRIO_PROCESS, template) == nicer
        result = pool.run(NICENESS)
        assert result.status == "passed", result
        assert result.stdout.split() == ["nice", str(nicer), "refused", "13"], result.stdout
        layers = pool.sb.isolation
        weight = "cpu.shares" if "cgroup1:cpu" in layers else "cpu.weight.nice" if "cgroup2:cpu" in layers else None
        if weight is not None:  # the slot cgroups' parent: 110 shares (a task at nice 10), or nice 10 itself
            files = list(Path("/sys/fs/cgroup").glob(f"**/quizbot-sandbox-{os.getpid()}-*/{weight}"))
            values = [f.read_text().strip() for f in files]  # this pool's, and the shared pool's (nice 0)
            assert ("110" if weight == "cpu.shares" else "10") in values, values
    finally:
        pool.close()
    assert SandboxConfig().nice == 0  # by default the sandbox keeps the bot's priority


def test_one_job_per_learner(clean_pool: Pool) -> None:
    first, second = clean_pool.gather((SLEEPER, {"owner": "discord:1"}), (SLEEPER, {"owner": "discord:1"}))
    assert first.status == "passed"
    assert second.status == "rejected" and "already have code running" in second.message
    other = clean_pool.gather((SLEEPER, {"owner": "discord:1"}), (SLEEPER, {"owner": "slack:1"}))
    assert [r.status for r in other] == ["passed", "passed"]


def test_a_cancelled_caller_keeps_the_learner_busy_until_the_job_ends(clean_pool: Pool) -> None:
    async def scenario() -> tuple[Result, Result]:
        sb = clean_pool.sb
        task = asyncio.create_task(sb.run("import time\ntime.sleep(1.5)\n", owner="discord:7"))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        during = await sb.run("print(1)", owner="discord:7")
        for _ in range(100):
            after = await sb.run("print(1)", owner="discord:7")
            if after.status != "rejected":
                return during, after
            await asyncio.sleep(0.1)
        return during, after

    during, after = clean_pool.call(scenario())
    assert during.status == "rejected"
    assert after.status == "passed"


def test_code_too_long_is_rejected(clean_pool: Pool) -> None:
    r = clean_pool.run("x = 1\n" * 20000)
    assert r.status == "rejected" and r.message == "Code too long: 120000 bytes (limit 65536)."


def test_a_job_whose_supervisor_dies_is_reported_crashed(clean_pool: Pool) -> None:
    async def scenario() -> Result:
        sb = clean_pool.sb
        task = asyncio.create_task(sb.run("import time\ntime.sleep(1.5)\n"))
        assert sb._template is not None
        for _ in range(100):
            if sb._template.supervisors:
                break
            await asyncio.sleep(0.02)
        for pid in list(sb._template.supervisors.values()):
            os.kill(pid, signal.SIGKILL)
        return await task

    result = clean_pool.call(scenario())
    assert result.status == "crashed", result
    assert clean_pool.run("print('next')").stdout == "next\n"


def test_a_template_that_dies_is_restarted_and_its_jobs_reported_crashed(pool: Pool) -> None:
    async def scenario() -> tuple[Result, Result, int | None, int | None]:
        sb = pool.sb
        before = sb.template_pid
        task = asyncio.create_task(sb.run("import time\ntime.sleep(1.5)\n"))
        await asyncio.sleep(0.3)
        assert before is not None
        os.kill(before, signal.SIGKILL)
        crashed = await task
        after = await sb.run(SEED_SOLUTION, test=SEED_TEST)
        return crashed, after, before, sb.template_pid

    crashed, after, before, now = pool.call(scenario())
    assert crashed.status == "crashed"
    assert after.status == "passed", after
    assert now != before and pool.sb.restarts >= 1
    pool.assert_clean()


async def test_degraded_host_still_confines_and_says_so(tmp_path: Path) -> None:
    canary = tmp_path / "canary.txt"
    canary.write_text("keep me")
    cfg = SandboxConfig(namespaces=False, cgroups=False, wall_s=3.0)
    async with Sandbox(cfg) as sb:
        assert sb.degraded and sb.workers == 1
        ok = await sb.run(SEED_SOLUTION, test=SEED_TEST)
        assert ok.status == "passed", ok
        assert "pidns" not in ok.isolation and {"seccomp", "landlock-fs", "rlimits"} <= set(ok.isolation)
        reads = await sb.run(f"print(open({str(canary)!r}).read())\n")
        assert reads.status == "error" and reads.error is not None and reads.error.type == "PermissionError"
        net = await sb.run("import socket\nsocket.create_connection(('127.0.0.1', 22), timeout=1)\n")
        assert net.status == "error"
        plant = await sb.run(f"import os\nos.symlink({str(tmp_path)!r}, 'link')\nprint('planted')\n")
        assert plant.stdout == "planted\n"
        # A duration no other test uses, so that only this job's daemon is looked for below.
        seconds = f"{300 + secrets.randbelow(10**6) / 10**7:.7f}"
        daemon = await sb.run(
            f"import subprocess\nsubprocess.Popen(['sleep', {seconds!r}], start_new_session=True)\n"
        )
        assert daemon.status == "passed"
    assert canary.read_text() == "keep me"  # the clean-up did not follow the planted link
    leftovers = [p for p in os.listdir("/proc") if p.isdigit() and _cmdline(p) == f"sleep{seconds}"]
    assert not leftovers


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b"").decode()
    except OSError:
        return ""


async def test_no_isolation_needs_the_explicit_setting(caplog: pytest.LogCaptureFixture) -> None:
    bare = {"namespaces": False, "seccomp": False, "cgroups": False, "landlock": False, "workers": 1}
    with pytest.raises(IsolationUnavailable, match="ALLOW_NO_ISOLATION"):
        await Sandbox(SandboxConfig(**bare)).start()  # type: ignore[arg-type]
    caplog.set_level(logging.WARNING, logger="sandbox")
    async with Sandbox(SandboxConfig(**bare, allow_no_isolation=True)) as sb:  # type: ignore[arg-type]
        assert sb.degraded
        assert (await sb.run("print('trusted only')")).stdout == "trusted only\n"
    assert any(r.levelno == logging.CRITICAL and "WITHOUT ISOLATION" in r.message for r in caplog.records)


HOLD_THREADS = """
import threading, time
release = threading.Event()
threads = [threading.Thread(target=release.wait) for _ in range(40)]
for t in threads:
    t.start()
print("host uid", open("/proc/self/uid_map").read().split()[1])
time.sleep({hold})
release.set()
"""


def _host_uid(result: Result) -> int:
    match = re.search(r"host uid (\d+)", result.stdout)
    assert match, result
    return int(match.group(1))


def test_two_pools_on_one_host_have_their_own_uids_and_process_budgets(clean_pool: Pool) -> None:
    """Two pools hold 40 threads per job at once; with shared uids RLIMIT_NPROC (64) would refuse."""
    other = Pool(SandboxConfig(workers=2, wall_s=6.0, cpu_s=6.0, memory_mb=256))
    try:
        assert other.sb.uid_base != clean_pool.sb.uid_base
        assert abs(other.sb.uid_base - clean_pool.sb.uid_base) >= 1024
        first: list[Result] = []
        holder = threading.Thread(
            target=lambda: first.extend(clean_pool.gather(*[(HOLD_THREADS.format(hold=1.5), {})] * 2))
        )
        holder.start()
        time.sleep(0.4)  # the first pool's jobs now hold their threads
        second = other.gather(*[(HOLD_THREADS.format(hold=0.2), {})] * 2)
        second += other.gather(*[(HOLD_THREADS.format(hold=0.2), {})] * 2)
        holder.join(30)
        assert [r.status for r in first + second] == ["passed"] * 6, [
            (r.status, r.stderr[-300:]) for r in second
        ]
        uids_first = {_host_uid(r) for r in first}
        uids_second = {_host_uid(r) for r in second}
        assert all(clean_pool.sb.uid_base <= u < clean_pool.sb.uid_base + 1024 for u in uids_first)
        assert all(other.sb.uid_base <= u < other.sb.uid_base + 1024 for u in uids_second)
    finally:
        other.close()
