"""Simulated learners answering concurrently through the core API on SQLite.

Two runs over the same database, both with 200 concurrent learners by default:

- paced: every learner answers at a steady pace (with a little jitter) so that together they
  offer --rate answers per second, as real learners with think time do; prints the rate achieved
  and p50/p99 latency of one answer;
- flat out: every learner answers again as soon as the last answer returns; prints the most the
  core sustains (latency here is mostly queueing behind the other learners).

An answer is a full `QuizService.act` call: load the session, grade, render the feedback and the
next item, and store the session, the attempt and the review card durably before returning.
Quiz starts (one per 10 answers) happen between answers and are not counted as answers.
Each run also prints the process's CPU time per answer (quiz starts included), which depends far
less than the rates on what else runs on a shared machine, and the statements sent to the database
per answer (`before_cursor_execute`; on PostgreSQL each is one round trip, and a transaction adds
its BEGIN and COMMIT, counted apart).
The garbage collector is tuned as `quizbot run` tunes it (`bot.loop.settle_gc`: what start-up made
frozen, young collections every 20,000 allocations); `--python-gc` keeps Python's defaults.
Not a test: figures depend on the machine and what else runs on it.

`--synchronous` sets SQLite's sync mode: FULL (the bot's: each commit is on the disk before the
answer's feedback is shown) or NORMAL (WAL commits synced only at checkpoints: what FULL costs);
`both` runs NORMAL then FULL in one sitting, each on a new database, and prints the ratios.

    .venv/bin/python bench/core_bench.py [--learners 200] [--answers 20] [--rate 1000] [--url ...] [--python-gc]
        [--loop uvloop|asyncio] [--synchronous FULL|NORMAL|both] [--without-report-bookkeeping]

`--without-report-bookkeeping` drops what every stored attempt also writes for the organiser's
report (the `first_attempts` trigger and the indexes `ix_attempts_pack_learner` and
`ix_attempts_pack_session`) from the bench's database after it is made: what they cost an answer.
Measurement only: the bot always has them.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Literal

from sqlalchemy import event

from bot.core import Actor, QuizService, SystemClock
from bot.core.packs import Pack
from bot.core.replies import Button
from bot.loop import run as run_loop
from bot.loop import settle_gc
from bot.storage import open_repository


def make_pack(questions: int) -> Pack:
    return Pack.model_validate(
        {
            "pack": "bench",
            "title": "Bench",
            "version": 1,
            "topics": [{"id": f"t{i}", "title": f"Topic {i}"} for i in range(5)],
            "questions": [
                {
                    "id": f"q{i}",
                    "type": "choice",
                    "topic": f"t{i % 5}",
                    "prompt": f"Question {i}?",
                    "hint": "Think.",
                    "explanation": "Because.",
                    "attempts": 1,
                    "choices": [{"text": "right", "correct": True}, {"text": "wrong"}, {"text": "also wrong"}],
                }
                for i in range(questions)
            ],
        }
    )


async def learner(
    service: QuizService,
    n: int,
    answers: int,
    latencies: list[float],
    rng: random.Random,
    interval: float,
    tag: str,
    spans: list[tuple[float, float]],
    finished: list[float],
) -> None:
    actor = Actor("bench", "server", f"{tag}{n}", f"User {n}")
    done = 0
    if interval:
        # Learners arrive spread over one quiz's length, so quiz starts are spread as in steady use.
        await asyncio.sleep(rng.uniform(0, interval * 10))
    next_at = first = time.perf_counter()
    while done < answers:
        reply = await service.start(actor, pack="bench", count=min(10, answers - done))
        item = [m for m in reply.messages if m.kind == "item"][-1]
        while item is not None and done < answers:
            buttons = [c for c in item.controls() if isinstance(c, Button) and len(c.label) == 1]
            choice = rng.choice(buttons)
            if interval:
                next_at += interval * rng.uniform(0.8, 1.2)
                await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
            started = time.perf_counter()
            reply = await service.act(actor, choice.action)
            latencies.append(time.perf_counter() - started)
            finished.append(time.perf_counter())
            done += 1
            items = [m for m in reply.messages if m.kind == "item"]
            item = items[-1] if items else None
            if not interval:
                await asyncio.sleep(0)
    spans.append((first, time.perf_counter()))


async def run(
    service: QuizService, learners: int, answers: int, interval: float, tag: str
) -> tuple[float, list[float], list[float], float]:
    """Return the answer rate while every learner was active, every answer's latency, and CPU s per answer."""
    cpu_start = time.process_time()
    latencies: list[float] = []
    spans: list[tuple[float, float]] = []
    finished: list[float] = []
    rng = random.Random(2)
    await asyncio.gather(
        *(learner(service, n, answers, latencies, rng, interval, tag, spans, finished) for n in range(learners))
    )
    window_start = max(s for s, _ in spans)  # the last learner has arrived
    window_end = min(e for _, e in spans)  # the first learner has left
    if window_end <= window_start:
        window_start, window_end = min(s for s, _ in spans), max(e for _, e in spans)
    inside = [lat for t, lat in zip(finished, latencies, strict=True) if window_start <= t <= window_end]
    cpu = (time.process_time() - cpu_start) / len(latencies)  # quiz starts included; both threads of the process
    return len(inside) / (window_end - window_start), latencies, inside, cpu


def percentiles(latencies: list[float]) -> str:
    ordered = sorted(latencies)
    p50 = statistics.median(ordered) * 1000
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
    return f"p50 {p50:.1f} ms, p99 {p99:.1f} ms"


def _count_statements(repo: object) -> dict[str, int]:
    """Count the statements the repository's engine sends, and (PostgreSQL) its transactions, each a BEGIN and a COMMIT."""
    engine = repo.engine.sync_engine  # type: ignore[attr-defined]
    counts = {"statements": 0, "transactions": 0, "postgresql": int(engine.dialect.name == "postgresql")}

    def statement(*_args: object) -> None:
        counts["statements"] += 1

    def begin(connection: object) -> None:
        if connection.get_execution_options().get("isolation_level") != "AUTOCOMMIT":  # type: ignore[attr-defined]
            counts["transactions"] += 1

    event.listen(engine, "before_cursor_execute", statement)
    event.listen(engine, "begin", begin)
    return counts


def report(
    name: str, rate: float, latencies: list[float], steady: list[float], cpu: float, counts: dict[str, int], before: dict[str, int]
) -> tuple[float, float, float]:
    """Print one run's figures; return its rate, its p99 with all learners active (s), and its CPU s per answer."""
    ordered = sorted(steady or latencies)
    n = len(latencies)
    sent = (counts["statements"] - before["statements"]) / n
    transactions = (counts["transactions"] - before["transactions"]) / n
    pairs = f" and {transactions:.2f} BEGIN/COMMIT pairs" if counts["postgresql"] else ""
    print(
        f"{name:17} {n} answers; {rate:.0f} answers/s with all learners active; "
        f"latency with all active {percentiles(steady)}; over the whole run (arrivals included) {percentiles(latencies)}; "
        f"CPU {cpu * 1e6:.0f} us per answer; {sent:.2f} statements{pairs} per answer"
    )
    return rate, ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], cpu


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=200)
    parser.add_argument("--answers", type=int, default=20, help="answers per learner in each run")
    parser.add_argument("--rate", type=float, default=1000.0, help="answers per second offered in the paced run")
    parser.add_argument("--url", default=None, help="database URL (default: a SQLite file in a temp folder)")
    parser.add_argument(
        "--python-gc", action="store_true", help="keep Python's garbage collector settings (default: tuned as quizbot run tunes them)"
    )
    parser.add_argument("--gc-freeze", action="store_true", help=argparse.SUPPRESS)  # what earlier runs asked for: the default now
    parser.add_argument("--loop", choices=["uvloop", "asyncio"], default="uvloop", help="the event loop (the bot's default: uvloop)")
    parser.add_argument(
        "--synchronous", choices=["FULL", "NORMAL", "both"], default="FULL",
        help="SQLite's sync mode (the bot's: FULL); both: NORMAL then FULL, side by side",
    )  # fmt: skip
    parser.add_argument(
        "--without-report-bookkeeping", action="store_true",
        help="drop the report's trigger and its two attempt indexes from the bench's SQLite database first (what they cost)",
    )  # fmt: skip
    return parser.parse_args()


Figures = dict[str, tuple[float, float, float]]

# What every stored attempt also writes for the organiser's report (migrations 0010 and 0011).
REPORT_BOOKKEEPING = (
    "DROP TRIGGER first_attempts_note",
    "DROP INDEX ix_attempts_pack_learner",
    "DROP INDEX ix_attempts_pack_session",
)


async def drop_report_bookkeeping(repo: object) -> None:
    """Measure without the report's per-attempt writes (SQLite only): what they cost an answer."""
    async with repo.engine.begin() as connection:  # type: ignore[attr-defined]
        for statement in REPORT_BOOKKEEPING:
            await connection.exec_driver_sql(statement)


async def one_sitting(args: argparse.Namespace, synchronous: Literal["FULL", "NORMAL"]) -> Figures:
    with tempfile.TemporaryDirectory() as folder:
        url = args.url or f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}"
        repo = await open_repository(url, synchronous=synchronous)
        service = QuizService(repository=repo, runner=None, clock=SystemClock(), rng=random.Random(1))
        await service.import_pack(make_pack(60), force=True)
        if args.without_report_bookkeeping:
            await drop_report_bookkeeping(repo)
        if not args.python_gc:
            settle_gc()
        counts = _count_statements(repo)
        sync = f"; synchronous={synchronous}" if url.startswith("sqlite") else ""
        print(
            f"database: {url.split(':')[0]}{sync}; event loop: {args.loop}; "
            f"{args.learners} concurrent learners, {args.answers} answers each per run"
        )
        before = dict(counts)
        paced = await run(service, args.learners, args.answers, args.learners / args.rate, "paced")
        figures = {"paced": report(f"paced at {args.rate:.0f}/s:", *paced, counts, before)}
        before = dict(counts)
        flat = await run(service, args.learners, args.answers, 0.0, "flat")
        figures["flat"] = report("flat out:", *flat, counts, before)
        await repo.close()
        return figures


async def main(args: argparse.Namespace) -> None:
    if args.synchronous != "both":
        await one_sitting(args, args.synchronous)
        return
    normal = await one_sitting(args, "NORMAL")
    full = await one_sitting(args, "FULL")
    for run_name in ("paced", "flat"):
        (n_rate, n_p99, n_cpu), (f_rate, f_p99, f_cpu) = normal[run_name], full[run_name]
        print(
            f"FULL / NORMAL, {run_name:5}: answers/s {f_rate / n_rate:.2f}, p99 {f_p99 / n_p99:.2f}, "
            f"CPU per answer {f_cpu / n_cpu:.2f}"
        )


if __name__ == "__main__":
    options = arguments()
    run_loop(main(options), use_uvloop=options.loop == "uvloop")
