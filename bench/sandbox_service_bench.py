"""Benchmark the sandbox as a service: jobs/s through the bot's client with one and with two services.

Run: ``python bench/sandbox_service_bench.py [--jobs 60] [--clients 4]``. Prints figures; asserts nothing.

Each configuration starts real ``python -m sandbox serve`` processes on 127.0.0.1 (one worker each,
queue 8) and sends ``--jobs`` small torch jobs through ``RemoteRunner`` from ``--clients``
concurrent callers; times are client-side round trips (HTTP included). For comparison the same
jobs run on an in-process pool of two workers, as the bot does without QUIZBOT_SANDBOX_URLS. On a
shared 2-core machine two services compete for the same cores, so expect little gain from the
second one here; on separate hosts each service brings its own cores.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.core.ports import CodeRunner, RunRequest  # noqa: E402
from bot.sandbox_client import SandboxRunner  # noqa: E402
from bot.sandbox_remote import RemoteRunner  # noqa: E402
from sandbox import SandboxConfig  # noqa: E402
from tests.ops.services import TOKEN, Service  # noqa: E402

JOB = "import torch\nw = torch.ones(3, requires_grad=True)\n(w * 2).sum().backward()\nprint(int(w.grad.sum()))\n"


async def drive(runner: CodeRunner, jobs: int, clients: int) -> tuple[float, list[float], int]:
    queue: asyncio.Queue[int] = asyncio.Queue()
    for n in range(jobs):
        queue.put_nowait(n)
    times: list[float] = []
    bad = 0

    async def client() -> None:
        nonlocal bad
        while not queue.empty():
            queue.get_nowait()
            started = time.perf_counter()
            outcome = await runner.run(RunRequest(code=JOB))
            times.append(time.perf_counter() - started)
            bad += outcome.stdout != "6\n"

    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    return time.perf_counter() - started, times, bad


def report(name: str, elapsed: float, times: list[float], bad: int) -> None:
    times.sort()
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    print(
        f"{name:<34} {len(times) / elapsed:6.1f} jobs/s   p50 {statistics.median(times) * 1000:6.0f} ms"
        f"   p99 {p99 * 1000:6.0f} ms   not ok {bad}"
    )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=60)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="sbbench-"))
    for count in (1, 2):
        services = [Service(folder / f"s{count}-{n}.log", workers=1, queue=8) for n in range(count)]
        try:
            for service in services:
                await asyncio.to_thread(service.wait_ready)
            runner = RemoteRunner([s.url for s in services], TOKEN, max_code_bytes=65536, wall_s=10.0)
            await drive(runner, 4, 2)  # warm-up
            elapsed, times, bad = await drive(runner, args.jobs, args.clients)
            report(f"{count} service(s) x 1 worker", elapsed, times, bad)
            await runner.close()
        finally:
            for service in services:
                service.stop()
    local = SandboxRunner(SandboxConfig(workers=2, queue=8, memory_mb=256, warm_optimizers=False))
    try:
        await drive(local, 4, 2)
        elapsed, times, bad = await drive(local, args.jobs, args.clients)
        report("in-process pool x 2 workers", elapsed, times, bad)
    finally:
        await local.close()


if __name__ == "__main__":
    asyncio.run(main())
