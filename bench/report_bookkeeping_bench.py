"""What the report's bookkeeping costs each stored attempt, part by part: CPU per attempt, variant by variant.

Every stored attempt also fires the `first_attempts_note` trigger (migration 0011) and updates the
report's two indexes (`ix_attempts_pack_learner`, `ix_attempts_pack_session`, migration 0010).
This bench makes one database with the real migrations, preloads it with --preload attempts (the
trigger writing `first_attempts` as they go in), copies it once per variant and changes each copy
(drops the trigger or an index, or puts another trigger in its place: without the seconds, without
the update, the insert alone, or `one-look`, which finds the learner's rows for the item once
instead of twice), then stores the same attempts into every copy with the plain `sqlite3` module:
in transactions of --batch attempts (as the bot's group commit stores answers), one --chunk each
round, the variants in a rotated order each round, checkpoints made as the bot's are (every 1,000
WAL pages, in a commit). It prints, per variant, the median over the rounds of the CPU time of
this process per attempt (`time.process_time`: SQLite works in this process; the range of the
blocks in brackets), its difference from `all` (every part, as the bot has it) and from `none` (no
bookkeeping: the median of the differences block by block, in the same round), the user CPU part of it (`getrusage`, whose split is sampled), the wall time, and the
WAL pages written per attempt in a first, untimed chunk (these are the same every run), with the
load average. `--plans` prints SQLite's plan of each statement of the old and the one-look trigger.

The class: many learners on one pack of --items items, quizzes of ten items, items asked again in
later quizzes (several attempts per item), a tenth of the attempts outside any quiz (the daily
post), some learners in two servers, all interleaved by time as concurrent learners are.

On PostgreSQL (`--db postgresql`, the local server) the same is measured as the CPU of the server
process serving the connection, each variant in a database copied from the preloaded one.

Not a test: figures depend on the machine and on what else runs on it.

    .venv/bin/python bench/report_bookkeeping_bench.py [--preload 60000] [--chunk 3200] [--rounds 9] [--batch 16]
        [--db sqlite postgresql] [--variants all none ...] [--synchronous FULL|NORMAL] [--cache-kib 512]
        [--mmap-mib 0] [--plans]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import resource
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.storage import open_repository
from bot.storage.database import MIGRATIONS, SQLITE_CACHE_KIB

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"
NOW = datetime(2026, 12, 7, tzinfo=UTC)
ATTEMPT = ("platform", "scope", "user_id", "pack_id", "question_id", "topic", "answer", "correct", "points", "at",
           "session_id", "key", "mode", "detail")  # fmt: skip
SESSION = ("id", "platform", "scope", "owner_kind", "owner_id", "status", "position", "data", "created_at", "updated_at",
           "version")  # fmt: skip
LEARNER_INDEX = "ix_attempts_pack_learner"
SESSION_INDEX = "ix_attempts_pack_session"
# What the reports that count the attempts read of the learner index, were it narrower: dropped, then made so.
NARROW = "+CREATE INDEX ix_attempts_pack_learner ON attempts (pack_id, platform, user_id, question_id, id, correct)"


def _migration(name: str) -> ModuleType:
    spec = spec_from_file_location(f"_bench_{name}", MIGRATIONS / "versions" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _class(attempts: int, items: int, seed: int = 5) -> tuple[list[tuple[Any, ...]], list[dict[str, Any]]]:
    """(sessions, attempts in the order stored): about forty attempts per learner, interleaved over a month."""
    rng = random.Random(seed)
    learners = max(1, attempts // 40)
    sessions: list[tuple[Any, ...]] = []
    events: list[tuple[datetime, dict[str, Any]]] = []
    made = 0
    u = 0
    while made < attempts:
        user, platform = f"u{u % learners}", "slack" if u % 7 == 0 else "discord"
        scopes = ["g1", "g2"] if u % 10 == 0 else ["g1"]
        at = NOW + timedelta(seconds=rng.randint(0, 86_400 * 30))
        if rng.random() < 0.1:  # the daily post: one answer, no quiz
            q = rng.randrange(items)
            events.append((at, {"platform": platform, "scope": scopes[0], "user_id": user, "session_id": None,
                                "question_id": f"q{q}", "mode": "daily", "right": rng.random() < 0.6}))
            made += 1
        else:
            sid = f"s{u}-{len(sessions)}"
            scope = rng.choice(scopes)
            sessions.append((sid, platform, scope, "user", user, "done", 10, "{}", at, at, 1))
            for q in rng.sample(range(items), 10):
                at += timedelta(seconds=rng.randint(3, 60), microseconds=rng.randint(0, 999_999))
                events.append((at, {"platform": platform, "scope": scope, "user_id": user, "session_id": sid,
                                    "question_id": f"q{q}", "mode": "quiz", "right": rng.random() < 0.6}))
            made += 10
        u += 1
    events.sort(key=lambda e: e[0])
    out = []
    for k, (at, e) in enumerate(events[:attempts]):
        right = e.pop("right")
        out.append({**e, "pack_id": "bench", "topic": None, "answer": "A. Key" if right else "B. B", "correct": right,
                    "points": int(right), "at": at, "key": f"k{k}", "detail": None})
    return sessions, out


def _text(v: Any) -> Any:
    return v.strftime("%Y-%m-%d %H:%M:%S.%f") if isinstance(v, datetime) else v


def _naive(v: Any) -> Any:
    return v.replace(tzinfo=None) if isinstance(v, datetime) else v


def _one_look(old: ModuleType, sqlite: bool) -> str:
    """The trigger with the 0011 migration's rows, looking at the learner's rows for the item once instead of twice.

    The update runs first (the new row is not there yet to be skipped), then one pass over the item's
    rows says whether one is in the attempt's scope and whether there is any; the row is inserted
    when none is in the scope. On PostgreSQL the update is still skipped after a first attempt in any.
    """
    secs = (old._SECS_SQLITE if sqlite else old._SECS_POSTGRESQL).format(row="NEW")
    here = "coalesce(max(f.scope = NEW.scope), 0)" if sqlite else "coalesce(bool_or(f.scope = NEW.scope), false)"
    insert = f"""
    INSERT INTO first_attempts ({old._COLUMNS})
    SELECT NEW.pack_id, NEW.platform, NEW.user_id, NEW.question_id, NEW.scope, NEW.id, NEW.correct, NEW.answer, NEW.detail,
        {secs}, 1, NEW.correct, CASE WHEN w.n = 0 THEN 1 END, CASE WHEN w.n = 0 THEN NEW.correct END
    FROM (SELECT count(*) AS n, {here} AS here FROM first_attempts f WHERE {old._KEY_F}) w
    WHERE NOT w.here"""
    if sqlite:
        update = old._UPDATE.replace(" AND attempt_id <> NEW.id", "")
        return f"CREATE TRIGGER first_attempts_note AFTER INSERT ON attempts\nBEGIN{update};{insert};\nEND"
    function = str(old.FUNCTION_POSTGRESQL)
    start, end = function.index("\n    INSERT"), function.index("\n    RETURNING")
    return function[:start] + insert + " ON CONFLICT DO NOTHING" + function[end:]


def _variants(sqlite: bool) -> dict[str, tuple[str | None, tuple[str, ...]]]:
    """name: (the trigger's SQL, or None for no trigger; the report indexes dropped)."""
    old = _migration("0011_first_attempts")
    cheaper = _one_look(old, sqlite)
    both = (LEARNER_INDEX, SESSION_INDEX)
    if sqlite:
        trigger = old.TRIGGER_SQLITE
        insert_only = old.TRIGGER_SQLITE.replace(old._UPDATE + ";", "")
        update_only = f"CREATE TRIGGER first_attempts_note AFTER INSERT ON attempts\nBEGIN{old._UPDATE};\nEND"
        secs = old._SECS_SQLITE.format(row="NEW")
    else:
        trigger = old.FUNCTION_POSTGRESQL
        insert_only = old.FUNCTION_POSTGRESQL.replace(f"IF fresh IS NULL THEN{old._UPDATE};\n    END IF;", "")
        update_only = old.FUNCTION_POSTGRESQL.replace("IF fresh IS NULL THEN", "IF true THEN")  # insert + update always
        secs = old._SECS_POSTGRESQL.format(row="NEW")
    assert secs in trigger and secs in cheaper and insert_only != trigger and "attempt_id <> NEW.id" in old._UPDATE
    return {
        "all": (trigger, ()),
        "none": (None, both),
        "no trigger": (None, ()),
        "no learner index": (trigger, (LEARNER_INDEX,)),
        # Without the session index the trigger's seconds would read the whole pack: measured without them.
        "no session index, no secs": (trigger.replace(secs, "NULL"), (SESSION_INDEX,)),
        "only the trigger, no secs": (trigger.replace(secs, "NULL"), both),
        "only the learner index": (None, (SESSION_INDEX,)),
        "only the session index": (None, (LEARNER_INDEX,)),
        "trigger without secs": (trigger.replace(secs, "NULL"), ()),
        "trigger insert only": (insert_only, ()),
        ("trigger update only" if sqlite else "trigger always updates"): (update_only, ()),
        "narrow learner index": (trigger, (LEARNER_INDEX, NARROW)),
        "no user_question index": (trigger, ("ix_attempts_user_question",)),
        "one-look trigger": (cheaper, ()),
        "one-look trigger without secs": (cheaper.replace(secs, "NULL"), ()),
    }


def _summary(name: str, blocks: list[float], extra: str, results: dict[str, list[float]]) -> str:
    """The variant's median, its range, and the median of its differences from `all` and `none` round by round."""
    m = statistics.median(blocks)
    diffs = "".join(
        f"  {statistics.median(x - y for x, y in zip(blocks, results[b], strict=True)):+7.1f} vs {b}"
        for b in ("all", "none")
        if b in results
    )
    return f"  {name:30} {m:7.1f} us/attempt ({min(blocks):6.1f}-{max(blocks):6.1f}){diffs}  {extra}"


def _print(results: dict[str, list[float]], extras: dict[str, str], title: str) -> None:
    print(f"{title}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name, blocks in results.items():
        print(_summary(name, blocks, extras.get(name, ""), results))
    sys.stdout.flush()


async def _sqlite(args: argparse.Namespace, sessions: list[tuple[Any, ...]], attempts: list[dict[str, Any]]) -> None:
    variants = {k: v for k, v in _variants(True).items() if not args.variants or k in args.variants}
    rows = [tuple(_text(a[c]) for c in ATTEMPT) for a in attempts]
    insert = f"INSERT INTO attempts ({', '.join(ATTEMPT)}) VALUES ({', '.join('?' * len(ATTEMPT))})"
    with tempfile.TemporaryDirectory() as folder:
        template = Path(folder) / "template.db"
        repository = await open_repository(f"sqlite+aiosqlite:///{template}")
        await repository.close()
        db = sqlite3.connect(template, isolation_level=None)
        db.execute("INSERT INTO packs (id, version, title, data, updated_at) VALUES ('bench', 1, 'Bench', '{}', '2026-12-07')")
        db.executemany(f"INSERT INTO sessions ({', '.join(SESSION)}) VALUES ({', '.join('?' * len(SESSION))})",
                       [tuple(_text(v) for v in s) for s in sessions])  # fmt: skip
        db.execute("BEGIN")
        db.executemany(insert, rows[: args.preload])
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        links: dict[str, sqlite3.Connection] = {}
        writers: dict[str, list[sqlite3.Connection]] = {}

        def connect(path: Path) -> sqlite3.Connection:
            c = sqlite3.connect(path, isolation_level=None)
            c.execute("PRAGMA journal_mode=WAL")
            c.execute(f"PRAGMA synchronous={args.synchronous}")
            c.execute("PRAGMA foreign_keys=ON")
            c.execute(f"PRAGMA cache_size=-{args.cache_kib}")
            c.execute(f"PRAGMA mmap_size={args.mmap_mib << 20}")
            return c

        for name, (trigger, dropped) in variants.items():
            path = Path(folder) / f"{len(links)}.db"
            shutil.copy(template, path)
            c = connect(path)
            c.execute("DROP TRIGGER first_attempts_note")
            if trigger is not None:
                c.execute(trigger)
            for index in dropped:
                c.execute(index[1:] if index.startswith("+") else f"DROP INDEX {index}")
            c.execute("VACUUM")
            links[name] = c
            writers[name] = [c] + [connect(path) for _ in range(args.writers - 1)]
        if args.plans:
            _plans(links, {name: v[0] for name, v in variants.items()})
        cpu: dict[str, list[float]] = {name: [] for name in variants}
        frames: dict[str, float] = {}
        user: dict[str, list[float]] = {name: [] for name in variants}
        wall: dict[str, list[float]] = {name: [] for name in variants}
        names = list(variants)
        for name, c in links.items():  # a first chunk, untimed: the pages each variant writes to the WAL
            chunk = rows[args.preload : args.preload + args.chunk]
            for w in writers[name]:
                w.execute("PRAGMA wal_autocheckpoint=0")
            _store(writers[name], insert, chunk, args.batch)
            frames[name] = c.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1] / len(chunk)
            c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            for w in writers[name]:
                w.execute("PRAGMA wal_autocheckpoint=1000")  # SQLite's default, the bot's: checkpoints in commits, timed
        for r in range(1, args.rounds + 1):
            chunk = rows[args.preload + r * args.chunk : args.preload + (r + 1) * args.chunk]
            for name in names[r % len(names) :] + names[: r % len(names)]:
                started, began, clock = time.process_time(), resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
                _store(writers[name], insert, chunk, args.batch)
                cpu[name].append((time.process_time() - started) / len(chunk) * 1e6)
                user[name].append((resource.getrusage(resource.RUSAGE_SELF).ru_utime - began.ru_utime) / len(chunk) * 1e6)
                wall[name].append((time.perf_counter() - clock) / len(chunk) * 1e6)
        counts = {name: c.execute("SELECT count(*) FROM first_attempts").fetchone()[0] for name, c in links.items()}
        for each in writers.values():
            for c in each:
                c.close()
    extras = {
        n: f"user {statistics.median(user[n]):5.1f}  wall {statistics.median(wall[n]):6.1f}  WAL frames/attempt "
        f"{frames[n]:.2f}  first_attempts {counts[n]}"
        for n in variants
    }
    _print(cpu, extras, f"sqlite ({args.synchronous}, cache {args.cache_kib} KiB, mmap {args.mmap_mib} MiB, {args.writers} writers), CPU of this process per attempt, median of {args.rounds} blocks "
           f"of {args.chunk} after {args.preload}")  # fmt: skip


def _store(writers: list[sqlite3.Connection], insert: str, chunk: list[tuple[Any, ...]], batch: int) -> None:
    """The attempts, `batch` a transaction, the writers taking turns (one writer keeps its page cache: more find it stale)."""
    for i in range(0, len(chunk), batch):
        c = writers[(i // batch) % len(writers)]
        c.execute("BEGIN IMMEDIATE")
        c.executemany(insert, chunk[i : i + batch])
        c.execute("COMMIT")


def _plans(links: dict[str, sqlite3.Connection], triggers: dict[str, str | None]) -> None:
    """SQLite's plan of each statement of the `all` and `one-look trigger` variants' triggers, NEW being an attempt."""
    new = {"id": "1000000000", "platform": "'discord'", "scope": "'g1'", "user_id": "'u1'", "pack_id": "'bench'",
           "question_id": "'q1'", "at": "'2026-12-08 00:00:00.000000'", "session_id": "'s1-0'", "correct": "1",
           "answer": "'x'", "detail": "NULL"}  # fmt: skip
    for name in ("all", "one-look trigger"):
        trigger = triggers.get(name)
        if name not in links or trigger is None:
            continue
        body = re.sub(r"NEW\.(\w+)", lambda m: new[m.group(1)], trigger.split("BEGIN", 1)[1].rsplit("END", 1)[0])
        for statement in filter(str.strip, body.split(";")):
            print(f"plan in '{name}' of {' '.join(statement.split())[:60]}...:")
            for step in links[name].execute(f"EXPLAIN QUERY PLAN {statement}"):
                print("   ", step[-1])


def _pg_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _postgresql(args: argparse.Namespace, sessions: list[tuple[Any, ...]], attempts: list[dict[str, Any]]) -> None:
    import asyncpg

    variants = {k: v for k, v in _variants(False).items() if not args.variants or k in args.variants}
    rows = [tuple(_naive(a[c]) for c in ATTEMPT) for a in attempts]
    insert = f"INSERT INTO attempts ({', '.join(ATTEMPT)}) VALUES ({', '.join(f'${i + 1}' for i in range(len(ATTEMPT)))})"
    tag = uuid.uuid4().hex[:8]
    template = f"quizbot_bench_{tag}"
    names = [f"quizbot_bench_{tag}_{i}" for i in range(len(variants))]
    admin = await asyncpg.connect(PG_ADMIN)
    await admin.execute(f'CREATE DATABASE "{template}"')
    links: dict[str, Any] = {}
    try:
        repository = await open_repository(f"postgresql+asyncpg://postgres@127.0.0.1:5432/{template}")
        await repository.close()
        c = await asyncpg.connect(f"postgresql://postgres@127.0.0.1:5432/{template}")
        await c.execute("INSERT INTO packs (id, version, title, data, updated_at) VALUES ('bench', 1, 'Bench', '{}', now())")
        await c.executemany(f"INSERT INTO sessions ({', '.join(SESSION)}) VALUES ({', '.join(f'${i + 1}' for i in range(11))})",
                            [tuple(_naive(v) for v in s) for s in sessions])  # fmt: skip
        await c.executemany(insert, rows[: args.preload])
        await c.execute("VACUUM ANALYZE")
        await c.close()
        for db, (name, (function, dropped)) in zip(names, variants.items(), strict=True):
            await admin.execute(f'CREATE DATABASE "{db}" TEMPLATE "{template}"')
            c = await asyncpg.connect(f"postgresql://postgres@127.0.0.1:5432/{db}")
            await c.execute("DROP TRIGGER first_attempts_note ON attempts")
            if function is not None:
                await c.execute(function.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION"))
                await c.execute(_migration("0011_first_attempts").TRIGGER_POSTGRESQL)
            for index in dropped:
                await c.execute(index[1:] if index.startswith("+") else f"DROP INDEX {index}")
            links[name] = (c, await c.fetchval("SELECT pg_backend_pid()"), await c.prepare(insert))
        cpu: dict[str, list[float]] = {name: [] for name in variants}
        order = list(variants)
        for r in range(1, args.rounds + 1):
            chunk = rows[args.preload + r * args.chunk : args.preload + (r + 1) * args.chunk]
            for name in order[r % len(order) :] + order[: r % len(order)]:
                c, pid, statement = links[name]
                started = _pg_cpu(pid)
                for i in range(0, len(chunk), args.batch):
                    async with c.transaction():
                        await statement.executemany(chunk[i : i + args.batch])
                cpu[name].append((_pg_cpu(pid) - started) / len(chunk) * 1e6)
        _print(cpu, {}, f"postgresql, CPU of the server process per attempt, median of {args.rounds} blocks of {args.chunk} "
               f"after {args.preload} (clock ticks of 10 ms: a block's figure is coarse)")  # fmt: skip
    finally:
        for c, _, _ in links.values():
            await c.close()
        for db in [*names, template]:
            await admin.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        await admin.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--preload", type=int, default=60_000, help="attempts stored before the measured ones")
    parser.add_argument("--chunk", type=int, default=3_200, help="attempts each variant stores per round")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--batch", type=int, default=16, help="attempts per transaction")
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument("--db", nargs="+", default=["sqlite"], choices=["sqlite", "postgresql"])
    parser.add_argument("--variants", nargs="*", default=[], help="only these (by name); `all` and `none` are the references")
    parser.add_argument("--synchronous", choices=["FULL", "NORMAL"], default="FULL", help="SQLite's; the bot's is FULL")
    parser.add_argument("--cache-kib", type=int, default=SQLITE_CACHE_KIB, help="SQLite's page cache (the bot's by default)")
    parser.add_argument("--mmap-mib", type=int, default=0, help="SQLite's mmap_size (the bot's: 0, none)")
    parser.add_argument("--writers", type=int, default=1, help="SQLite connections taking turns at the transactions")
    parser.add_argument("--plans", action="store_true", help="print the SQLite plan of an insert under the old and new trigger")
    args = parser.parse_args()
    sessions, attempts = _class(args.preload + (args.rounds + 1) * args.chunk, args.items)
    firsts = len({(a["platform"], a["user_id"], a["question_id"], a["scope"]) for a in attempts})
    print(f"{len(attempts)} attempts, {len(sessions)} quizzes, {firsts / len(attempts):.0%} of the attempts first in their scope")
    runs: dict[str, Callable[..., Any]] = {"sqlite": _sqlite, "postgresql": _postgresql}
    for db in args.db:
        await runs[db](args, sessions, attempts)


if __name__ == "__main__":
    asyncio.run(main())
