"""One configuration: fresh database, fakes and bot processes, the learners for `seconds`, then the count."""

from __future__ import annotations

import asyncio
import os
import resource
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

from tests.discord.fake_discord import BOT_TOKEN as DISCORD_TOKEN
from tests.ops.services import TOKEN as SANDBOX_TOKEN
from tests.slack.conftest import BOT_TOKEN as SLACK_TOKEN
from tests.slack.conftest import SIGNING_SECRET

from .bots import Bot, log_errors
from .database import PgSampler, count_attempts, drop_database, make_database
from .discord_learners import DiscordLearners, announce_guilds
from .fakes import BenchDiscord, BenchSlack
from .measure import MemorySampler, Tally, cpu_seconds, host_ticks, runqueue_wait_seconds, tree_cpu_seconds
from .settings import NEXT_WAIT_S, ROOT
from .slack_learners import SlackLearners


@dataclass
class Result:
    platform: str
    processes: int
    sandbox: str
    seconds: float
    learners: int
    tally: Tally
    attempts: int
    api_errors: int
    rss_peak_mb: list[float]
    hwm_mb: list[float]
    pool_mb: list[float]
    torch: list[bool]
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    started_utc: str
    bench_cpu_s: float
    startup_s: list[float]
    exit_codes: list[int | None]
    balance: str = "roundrobin"
    bots_cpu_s: list[float] = field(default_factory=list)
    pg: str = ""
    log_errors: list[tuple[int, dict[str, int]]] = field(default_factory=list)
    bots_wait_s: list[float] = field(default_factory=list)
    database: str = "postgresql"
    bot_root: Path = ROOT
    uvloop: list[bool] = field(default_factory=list)  # whether each bot process runs on uvloop (mapped its library)
    warmup_s: float = 0.0  # the CPU per answer counts from here (0: the whole run)
    steady_cpu_s: float = 0.0  # the bots' CPU time after the warm-up, all processes
    steady_acks: int = 0  # the answers acknowledged after the warm-up
    unfinished: int = 0  # code answers accepted (acknowledged) whose grading was still unfinished at the stop
    pools_cpu_s: float = 0.0  # the sandbox's CPU time over the run: the bots' pools or the services (every job's processes)
    host_busy: float = float("nan")  # the share of the host's CPU time in use over the run (0-1), by anything
    bench_lags: list[float] = field(default_factory=list)  # how late this process's loop woke from 5 ms sleeps (its own share of an ack)
    bench_wait_s: float = 0.0  # this process runnable but waiting for a CPU over the run

    def whole_run_cpu_per_answer_ms(self) -> float:
        acks = len(self.tally.acks)
        return 1000 * sum(self.bots_cpu_s) / acks if acks else float("nan")

    def cpu_per_answer_ms(self) -> float:
        """The bot processes' CPU time per answer acknowledged after the warm-up (NaN for none).

        The warm-up (every learner's first quiz start, the caches filling) is left out: its cost is
        the same however fast the answers come, so per answer it would weigh most where fewest are served.
        """
        return 1000 * self.steady_cpu_s / self.steady_acks if self.steady_acks else float("nan")

    def steady_latencies(self) -> list[float]:
        """The acks after the warm-up, sorted: once every learner is in and has started a first quiz.

        The learners arrive over the first seconds (4 ms apart), each with a quiz start: that burst
        is the cold part of a run, a rush of starts rather than the paced rate, and is left out here
        as it is from the CPU per answer (the whole run's figures are printed beside these).
        """
        acks = self.tally.acks
        return sorted(acks[len(acks) - self.steady_acks :])

    def cpu_line(self) -> str:
        count = f"{self.processes} process{'es' if self.processes != 1 else ''}"
        return f"bot CPU per answer: {self.cpu_per_answer_ms():.2f} ms ({self.platform}, {count}, {self.database})"


def sandbox_cpu_seconds(bots: list[Bot]) -> float:
    """The sandbox's CPU time so far: this process's descendants but the bots themselves.

    That is the bots' pools (their children) or the sandbox services this process started, each with
    the job processes it has reaped.
    """
    return tree_cpu_seconds(os.getpid()) - sum(cpu_seconds(b.process.pid) for b in bots)


async def run_config(
    platform: str, processes: int, sandbox: str, *, seconds: float, learners: int, folder: Path, packs: Path,
    service_url: str | None, balance: str = "roundrobin", database: str = "postgresql", bot_root: Path = ROOT,
    warmup: float = 10.0,
) -> Result:  # fmt: skip
    name, url = await make_database(database, folder)
    bots: list[Bot] = []
    fake_slack = BenchSlack() if platform == "slack" else None
    fake_discord = BenchDiscord() if platform == "discord" else None
    tally = Tally()
    try:
        if fake_slack is not None:
            await fake_slack.start()
        if fake_discord is not None:
            announce_guilds(fake_discord, processes)
            await fake_discord.start()
        startup: list[float] = []
        for n in range(processes):
            env = {"QUIZBOT_DATABASE_URL": url, "QUIZBOT_PACKS": str(packs)}
            if fake_slack is not None:
                env |= {"SLACK_BOT_TOKEN": SLACK_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET, "SLACK_API_URL": fake_slack.api_url}
            if fake_discord is not None:
                env |= {"DISCORD_TOKEN": DISCORD_TOKEN, "DISCORD_API_URL": fake_discord.api_url}
                if processes > 1:
                    env |= {"DISCORD_SHARD_COUNT": str(processes), "DISCORD_SHARDS": str(n)}
            if sandbox == "service":
                assert service_url is not None
                env |= {"QUIZBOT_SANDBOX_URLS": service_url, "QUIZBOT_SANDBOX_TOKEN": SANDBOX_TOKEN}
            else:
                env |= {"QUIZBOT_SANDBOX_WORKERS": "2", "QUIZBOT_SANDBOX_MEMORY_MB": "256", "QUIZBOT_SANDBOX_WARM_OPTIMIZERS": "false"}
            bot = Bot(folder, f"{platform}-{processes}-{sandbox}-{balance}-{database}-{secrets.token_hex(2)}-{n}", env, bot_root)
            bots.append(bot)
            startup.append(await bot.wait_ready())  # one after the other: the first imports the pack
        if fake_discord is not None:
            deadline = time.monotonic() + 60
            while len(fake_discord.shard_sockets) < processes and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            if len(fake_discord.shard_sockets) < processes:
                raise RuntimeError(f"only {len(fake_discord.shard_sockets)} of {processes} shards connected")
            await asyncio.sleep(1.0)  # READY handled, commands synced
        sampler = MemorySampler([b.process.pid for b in bots])
        stop_sampling = asyncio.Event()
        sampling = asyncio.create_task(sampler.run(stop_sampling))
        pg = PgSampler(name) if database == "postgresql" else None
        pg_sampling = asyncio.create_task(pg.run(stop_sampling)) if pg is not None else None
        load_before = os.getloadavg()
        started_utc = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        cpu_before = resource.getrusage(resource.RUSAGE_SELF)
        bots_cpu_before = [cpu_seconds(b.process.pid) for b in bots]
        bots_wait_before = [runqueue_wait_seconds(b.process.pid) for b in bots]
        pools_cpu_before = sandbox_cpu_seconds(bots)
        host_before = host_ticks()
        until = time.monotonic() + seconds
        began = time.monotonic()
        steady: list[tuple[list[float], int]] = []  # the bots' CPU and the acks so far, once the warm-up is over

        async def mark_steady() -> None:
            await asyncio.sleep(warmup)
            steady.append(([cpu_seconds(b.process.pid) for b in bots], len(tally.acks)))

        marker = asyncio.create_task(mark_steady()) if 0 < warmup < seconds else None
        lags: list[float] = []

        async def probe_lag() -> None:  # the measuring loop's own delay, which every ack it times includes
            while True:
                asked = time.perf_counter()
                await asyncio.sleep(0.005)
                lags.append(time.perf_counter() - asked - 0.005)

        prober = asyncio.create_task(probe_lag())
        bench_wait_before = runqueue_wait_seconds(os.getpid())
        if fake_slack is not None:
            connector = aiohttp.TCPConnector(limit=0)
            async with aiohttp.ClientSession(connector=connector) as http:
                group = SlackLearners(fake_slack, [b.slack_url for b in bots], http, tally, sticky=balance == "sticky")
                await asyncio.wait_for(asyncio.gather(*(group.learner(i, until) for i in range(learners))), seconds + 2 * NEXT_WAIT_S + 30)
        else:
            assert fake_discord is not None
            dgroup = DiscordLearners(fake_discord, processes, tally)
            await asyncio.wait_for(asyncio.gather(*(dgroup.learner(i, until) for i in range(learners))), seconds + 3 * NEXT_WAIT_S + 30)
        elapsed = time.monotonic() - began
        cpu_after = resource.getrusage(resource.RUSAGE_SELF)
        bots_cpu = [cpu_seconds(b.process.pid) - c for b, c in zip(bots, bots_cpu_before, strict=True)]
        if marker is not None:
            marker.cancel()
        prober.cancel()
        bench_wait = runqueue_wait_seconds(os.getpid()) - bench_wait_before
        steady_cpu, steady_acks = (
            (sum(cpu_seconds(b.process.pid) - c for b, c in zip(bots, steady[0][0], strict=True)), len(tally.acks) - steady[0][1])
            if steady
            else (sum(bots_cpu), len(tally.acks))
        )
        bots_wait = [runqueue_wait_seconds(b.process.pid) - w for b, w in zip(bots, bots_wait_before, strict=True)]
        pools_cpu = sandbox_cpu_seconds(bots) - pools_cpu_before
        host_after = host_ticks()
        host_busy = (host_after[1] - host_before[1]) / max(1, host_after[0] - host_before[0])
        load_after = os.getloadavg()
        stop_sampling.set()
        await sampling
        if pg_sampling is not None:
            await pg_sampling
        # SIGTERM: each bot finishes what is in flight (QUIZBOT_SHUTDOWN_GRACE_S) before the count
        exit_codes = await asyncio.gather(*(asyncio.to_thread(b.stop) for b in bots))
        attempts, unfinished = await count_attempts(database, name, platform)
        api_errors = len(fake_slack.errors) if fake_slack is not None else (fake_discord.api_errors if fake_discord else 0)
        pids = sampler.pids
        return Result(
            platform, processes, sandbox, elapsed, learners, tally, attempts, api_errors,
            [sampler.rss_peak_kb[x] / 1024 for x in pids], [sampler.hwm_kb[x] / 1024 for x in pids],
            [sampler.pool_peak_kb[x] / 1024 for x in pids], [sampler.torch[x] for x in pids],
            load_before, load_after, started_utc,
            (cpu_after.ru_utime + cpu_after.ru_stime) - (cpu_before.ru_utime + cpu_before.ru_stime),
            startup, list(exit_codes), balance, bots_cpu, pg.summary(len(tally.acks)) if pg is not None else "",
            [log_errors(b.log_path) for b in bots], bots_wait, database, bot_root,
            [sampler.uvloop[x] for x in pids], warmup if steady else 0.0, steady_cpu, steady_acks, unfinished,
            pools_cpu, host_busy, sorted(lags), bench_wait,
        )  # fmt: skip
    finally:
        for bot in bots:
            bot.stop()
        if fake_slack is not None:
            await fake_slack.close()
        if fake_discord is not None:
            await fake_discord.close()
        await drop_database(database, name)
