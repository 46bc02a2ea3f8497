"""Benchmark the sandbox: warm pool against a fresh interpreter, throughput, and the pool's memory.

Run: ``python bench/sandbox_bench.py [--n 20] [--seconds 20] [--tree OTHER_CHECKOUT]``. Prints
figures; asserts nothing. ``--tree`` measures another checkout's sandbox with the same bench (run it
with that checkout's interpreter: the template imports the package its ``.pth`` names).

1. Latency: the same seed-style exercise (a weight matrix, a matmul, an MSE loss, backward, a
   print; graded by an eight-test unittest module in the seed chapter's style) is graded N times
   through the warm pool, one submission after another, and N times by a fresh
   ``python -m unittest`` process per submission under the same rlimits, environment and an
   empty network namespace. Times are client-side round trips (submit to result).
2. Throughput: two concurrent clients submit the same exercise back to back for S seconds, with
   the CPU time per graded submission: the pool's (user + system time of the template and every
   process under it, those that ended included, from /proc) and this process's (the bot's side).
   CPU time moves less with the host's load than the rates do.
3. Memory: proportional set size (PSS, so shared pages are counted once) of the template and all
   its descendants, idle and sampled during the throughput run; the idle figure per process kind.

Every section prints the 1-minute load average next to its figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

_TREE = argparse.ArgumentParser(add_help=False)
_TREE.add_argument("--tree", type=Path, default=None)
ROOT = _TREE.parse_known_args()[0].tree or Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT.resolve()))

from sandbox import Sandbox, SandboxConfig  # noqa: E402
from sandbox._process import job_environment  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "sandbox" / "fixtures"
SOLUTION = (FIXTURES / "seed_style_solution.py").read_text()
TEST = (FIXTURES / "seed_style_test.py").read_text()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def pss_kb(pid: int, field: str = "Pss:") -> int:
    """Return a process's PSS in KiB (``Pss_Anon:``: only its anonymous memory)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


_TICK = os.sysconf("SC_CLK_TCK")


def pool_cpu_s(template_pid: int) -> float:
    """Return the CPU seconds (user + system) the pool has used: its processes and those they reaped."""
    total = 0
    for pid in descendants(template_pid):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return total / _TICK


def pss_by_kind(template_pid: int) -> dict[str, float]:
    """Return the PSS (MB) of the pool's processes summed by name (template, supervisors, job processes)."""
    out: dict[str, float] = {}
    for pid in descendants(template_pid):
        try:
            with open(f"/proc/{pid}/comm") as fh:
                name = fh.read().strip()
        except OSError:
            continue
        out[name] = out.get(name, 0.0) + pss_kb(pid) / 1024
    return out


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def pool_memory_mb(template_pid: int) -> tuple[float, float, int]:
    """Return (template PSS, whole pool PSS, processes) in MB."""
    pids = descendants(template_pid)
    total = sum(pss_kb(p) for p in pids)
    return pss_kb(template_pid) / 1024, total / 1024, len(pids)


async def warm_latencies(sb: Sandbox, n: int, pause: float = 0.0) -> tuple[list[float], list[float]]:
    """Return the round trips and the jobs' own wall times of ``n`` graded submissions in a row."""
    out: list[float] = []
    walls: list[float] = []
    for _ in range(n):
        if pause:
            await asyncio.sleep(pause)  # the pool has its next worker prepared, as between learners
        t = time.perf_counter()
        result = await sb.run(SOLUTION, test=TEST)
        out.append((time.perf_counter() - t) * 1000)
        walls.append(float(result.wall_ms))
        assert result.status == "passed", result
    return out, walls


async def fresh_latencies(cfg: SandboxConfig, n: int) -> list[float]:
    env = job_environment(())
    env["PYTHONDONTWRITEBYTECODE"] = "1"

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (int(cfg.cpu_s), int(cfg.cpu_s) + 1))
        resource.setrlimit(resource.RLIMIT_FSIZE, (cfg.file_bytes, cfg.file_bytes))
        resource.setrlimit(resource.RLIMIT_NOFILE, (cfg.open_files, cfg.open_files))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    prefix = ["unshare", "--net"] if os.geteuid() == 0 and shutil.which("unshare") else []
    out = []
    for _ in range(n):
        work = tempfile.mkdtemp(prefix="bench-fresh-")
        Path(work, "user_code.py").write_text(SOLUTION)
        Path(work, "test_code.py").write_text(TEST)
        env["HOME"] = env["TMPDIR"] = work
        t = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(
            *prefix,
            sys.executable,
            "-m",
            "unittest",
            "-q",
            "test_code",
            cwd=work,
            env=env,
            preexec_fn=limits,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await proc.communicate()
        out.append((time.perf_counter() - t) * 1000)
        shutil.rmtree(work, ignore_errors=True)
        assert proc.returncode == 0, err.decode()[-2000:]
    return out


async def throughput(
    sb: Sandbox, seconds: float, template_pid: int
) -> tuple[int, int, list[float], float, list[int], float, float]:
    """Return passed, other, latencies, peak pool PSS, job peaks, pool and bot CPU seconds."""
    pool0, bot0 = pool_cpu_s(template_pid), time.thread_time()  # the event loop's thread: the bot side
    deadline = time.monotonic() + seconds
    done = [0, 0]
    latencies: list[float] = []
    job_peaks: list[int] = []
    peak = [0.0]

    async def client(k: int) -> None:
        while time.monotonic() < deadline:
            t = time.perf_counter()
            result = await sb.run(SOLUTION, test=TEST, owner=f"client-{k}")
            latencies.append((time.perf_counter() - t) * 1000)
            job_peaks.append(result.peak_memory_mb)
            done[0 if result.status == "passed" else 1] += 1

    async def sample() -> None:
        while time.monotonic() < deadline:
            peak[0] = max(peak[0], (await asyncio.to_thread(pool_memory_mb, template_pid))[1])
            await asyncio.sleep(0.5)

    await asyncio.gather(client(0), client(1), sample())
    bot = time.thread_time() - bot0
    await asyncio.sleep(0.5)  # the last supervisors are reaped: their CPU is counted
    return done[0], done[1], latencies, peak[0], job_peaks, pool_cpu_s(template_pid) - pool0, bot


def line(label: str, values: list[float]) -> str:
    return f"  {label:<28} median {statistics.median(values):8.1f} ms   p95 {pct(values, 0.95):8.1f} ms   (n={len(values)})"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20, help="submissions per latency series")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the throughput run")
    parser.add_argument(
        "--tree",
        type=Path,
        default=None,
        help="measure the sandbox package of another checkout (the old code, for side-by-side runs)",
    )
    parser.add_argument(
        "--fresh", type=int, default=None, help="fresh-interpreter runs (default: --n; 0 skips)"
    )
    args = parser.parse_args()
    cfg = SandboxConfig()
    print(
        f"host: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, Python {sys.version.split()[0]};"
        f" sandbox from {Path(sys.modules['sandbox'].__file__ or '').parent}"
    )
    t = time.perf_counter()
    async with Sandbox(cfg) as sb:
        print(f"template start: {time.perf_counter() - t:.2f} s; workers {sb.workers}")
        first = await sb.run(SOLUTION, test=TEST)
        print(f"isolation: {', '.join(first.isolation)}")
        print(
            f"grading: {first.status}, {first.message} (job wall {first.wall_ms} ms, CPU {first.cpu_ms} ms)"
        )
        template_pid = sb.template_pid or 0
        await asyncio.sleep(1.0)
        tmpl, idle_total, nproc = pool_memory_mb(template_pid)
        kinds = pss_by_kind(template_pid)
        idle_anon = sum(pss_kb(p, "Pss_Anon:") for p in descendants(template_pid)) / 1024
        idle_load = load()
        paced, paced_walls = await warm_latencies(sb, args.n, pause=0.3)
        warm, _ = await warm_latencies(sb, args.n)
        n_fresh = args.n if args.fresh is None else args.fresh
        fresh = await fresh_latencies(cfg, n_fresh) if n_fresh else []
        print(f"latency of one graded submission (client round trip; {load()} at the end):")
        print(line("warm pool, 0.3 s apart", paced))
        print(line("  its job's own wall time", paced_walls))
        print(line("warm pool, back to back", warm))
        if fresh:
            print(line("fresh python -m unittest", fresh))
            print(
                f"  ratio (fresh / warm, medians): {statistics.median(fresh) / statistics.median(warm):.1f}x;"
                f" p95 ratio {pct(fresh, 0.95) / pct(warm, 0.95):.1f}x"
            )
        before = load()
        ok, bad, lat, peak, job_peaks, pool_cpu, bot_cpu = await throughput(sb, args.seconds, template_pid)
        print(
            f"throughput, 2 concurrent clients for {args.seconds:g} s: {ok / args.seconds:.1f} graded submissions/s"
            f" ({ok} passed, {bad} other); latency under load median {statistics.median(lat):.1f} ms,"
            f" p95 {pct(lat, 0.95):.1f} ms ({before} before, {load()} after)"
        )
        n = max(1, ok + bad)
        print(
            f"CPU per graded submission during it: pool {pool_cpu / n * 1000:.1f} ms"
            f" (template, supervisors, job processes), bot side {bot_cpu / n * 1000:.1f} ms"
        )
        print(
            f"pool memory (PSS): template {tmpl:.0f} MB; idle pool {idle_total:.0f} MB in {nproc} processes"
            f" (template + {sb.workers * 2} prepared workers; {idle_load}), {idle_anon:.0f} MB of it anonymous"
            f" (the rest is files such as torch's libraries, shared with any other process mapping them);"
            f" by kind: {', '.join(f'{k} {v:.0f} MB' for k, v in sorted(kinds.items()))};"
            f" peak sampled during throughput {peak:.0f} MB with {sb.workers} jobs running; each job's own"
            f" peak (its cgroup) median {statistics.median(job_peaks):.0f} MB, max {max(job_peaks)} MB"
        )


if __name__ == "__main__":
    asyncio.run(main())
