"""The command line: every configuration asked for in turn, the summary table, then sandbox jobs/s."""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import bench.platform_load as package
from bench.sandbox_service_bench import drive
from bot.loop import run as run_loop
from bot.sandbox_remote import RemoteRunner
from tests.ops.services import TOKEN as SANDBOX_TOKEN
from tests.ops.services import Service

from . import settings
from .measure import percentile
from .pack import write_pack
from .report import print_result, summary_table
from .run import Result, run_config
from .settings import ROOT


async def sandbox_jobs(folder: Path, jobs: int, clients: int) -> None:
    """Sandbox jobs/s through the bot's client with one and two services (bench/sandbox_service_bench.py's measure)."""
    print(f"\n== sandbox jobs/s: {jobs} small torch jobs from {clients} concurrent callers, services of 1 worker ==")
    for count in (1, 2):
        services = [Service(folder / f"jobs-{count}-{n}.log", workers=1, queue=8) for n in range(count)]
        try:
            for service in services:
                await asyncio.to_thread(service.wait_ready)
            runner = RemoteRunner([s.url for s in services], SANDBOX_TOKEN, max_code_bytes=65536, wall_s=10.0)
            await drive(runner, 4, 2)  # warm-up
            load = os.getloadavg()
            elapsed, times, bad = await drive(runner, jobs, clients)
            times.sort()
            print(f"  {count} service(s): {len(times) / elapsed:.1f} jobs/s, p50 {1000 * statistics.median(times):.0f} ms, "
                  f"p99 {1000 * percentile(times, 0.99):.0f} ms, not ok {bad}; load average {load[0]:.2f}", flush=True)  # fmt: skip
            await runner.close()
        finally:
            for service in services:
                service.stop()


def parse_list(text: str, allowed: Callable[[str], bool]) -> list[str]:
    values = [v.strip() for v in text.split(",") if v.strip()]
    bad = [v for v in values if not allowed(v)]
    if bad or not values:
        raise argparse.ArgumentTypeError(f"not allowed: {', '.join(bad) or '(empty)'}")
    return values


async def main_async(args: argparse.Namespace) -> list[Result]:
    folder = Path(tempfile.mkdtemp(prefix="platform-bench-"))
    packs = folder / "packs"
    write_pack(packs)
    print(f"platform benchmark: {args.learners} learners (think {settings.THINK_S:g} s), {args.seconds:g} s per configuration, "
          f"{' and '.join(args.database)}, code at {', '.join(str(r) for r in args.bot_root)}, "
          f"CPUs {os.cpu_count()}, load average {'/'.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}; logs in {folder}", flush=True)  # fmt: skip
    results: list[Result] = []
    service: Service | None = None
    try:
        for sandbox in args.sandbox:
            if sandbox == "service":
                service = Service(folder / "sandbox-service.log", workers=2, queue=16)
                await asyncio.to_thread(service.wait_ready)
            for processes, platform, database in itertools.product(args.processes, args.only, args.database):
                balances = args.balance if platform == "slack" and processes > 1 else ["roundrobin"]
                # each checkout in turn, configuration by configuration: A, B, A, B ... (--bot-root, --repeat)
                for balance, _, root in itertools.product(balances, range(args.repeat), args.bot_root):
                    result = await run_config(
                        platform, processes, sandbox, seconds=args.seconds, learners=args.learners, folder=folder,
                        packs=packs, service_url=service.url if service else None, balance=balance,
                        database=database, bot_root=root, warmup=args.warmup,
                    )  # fmt: skip
                    print_result(result)
                    results.append(result)
            if service is not None:
                service.stop()
                service = None
    finally:
        if service is not None:
            service.stop()
    summary_table(results)
    if args.jobs > 0:
        await sandbox_jobs(folder, args.jobs, 4)
    print(f"\nfinished {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}; "
          f"load average {'/'.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)  # fmt: skip
    return results


def main(argv: list[str] | None = None) -> list[Result]:
    parser = argparse.ArgumentParser(description=(package.__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the learners answer, per configuration")
    parser.add_argument("--learners", type=int, default=500)
    parser.add_argument("--only", type=lambda s: parse_list(s, lambda v: v in ("slack", "discord")), default=["slack", "discord"])
    parser.add_argument("--processes", type=lambda s: [int(v) for v in parse_list(s, lambda v: v in ("1", "2"))], default=[1, 2])
    parser.add_argument("--sandbox", type=lambda s: parse_list(s, lambda v: v in ("local", "service")), default=["local", "service"])
    parser.add_argument(
        "--balance", type=lambda s: parse_list(s, lambda v: v in ("roundrobin", "sticky")), default=["roundrobin"],
        help="Slack with two processes: round robin per request, and/or sticky (each learner to one process)",
    )  # fmt: skip
    parser.add_argument("--jobs", type=int, default=100, help="sandbox jobs for the jobs/s measure (0: skip it)")
    parser.add_argument("--think", type=float, default=0.0, help="seconds a learner reads an item before answering (0.5-1.5x; 0: flat out)")
    parser.add_argument(
        "--database", type=lambda s: parse_list(s, lambda v: v in ("postgresql", "sqlite")), default=["postgresql"],
        help="a fresh PostgreSQL database on 127.0.0.1:5432, and/or a fresh SQLite file",
    )  # fmt: skip
    parser.add_argument(
        "--bot-root", type=lambda s: [Path(v).resolve() for v in parse_list(s, lambda v: (Path(v) / "bot").is_dir())],
        default=[ROOT], help="checkouts whose code the bot processes run, in turn (default: this one)",
    )  # fmt: skip
    parser.add_argument(
        "--loop", choices=["uvloop", "asyncio"], default="uvloop",
        help="this process's event loop (the fakes' and the learners'): uvloop costs the host less CPU beside the bots",
    )  # fmt: skip
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds left out of the CPU per answer at the start")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each configuration per checkout, alternating")
    parser.add_argument("--log-level", choices=["DEBUG", "INFO", "WARNING", "ERROR"], default="WARNING", help="the bot processes' log level")
    args = parser.parse_args(argv)
    settings.THINK_S = max(0.0, args.think)
    settings.BOT_LOG_LEVEL = args.log_level
    if not 1 <= args.learners <= 5000 or not 0 < args.seconds <= 600 or not 1 <= args.repeat <= 20:
        parser.error("--learners must be 1-5000, --seconds 0-600 and --repeat 1-20")
    return run_loop(main_async(args), use_uvloop=args.loop == "uvloop")
