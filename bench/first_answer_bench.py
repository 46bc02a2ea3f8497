"""What a learner's first answer of the day costs the bot on PostgreSQL, against later answers.

Every learner answered yesterday, their very first answer (it made their row, with a one-day
streak: measured too, as "very first"); a repository opened since has
stored nothing of them, as a process started this morning, or one that did not store their day.
Each learner's first answer today moves their streak, and each later answer changes nothing of
them; a daily review's answer first reads its card's failures in the review (`card_failures`, as
the daily service does for every one), then also adds to the day's count of reviews and, every
other one (wrong), stores the card's failures. Stored through the repository (`write_answer`) as
the bot stores a click, one at a time.

`--bot-root A,B` runs the same measure with each checkout's code, alternating A, B, A, B (each
block in a child process with that checkout on its path). Before a7be3aa a first answer was stored
in a SQLAlchemy transaction, and before 7a5db3f a daily review's answer too; before
f995202 its card's failures were read through SQLAlchemy; before e237ab3 a very
first answer was a transaction. Prints this process's
CPU per answer (the session's read included) for each block, then the medians. Not a test: figures depend on the
machine and on what else runs on it (the load average is printed).

    .venv/bin/python bench/first_answer_bench.py [--learners 400] [--blocks 3] [--bot-root .,../before]
"""

from __future__ import annotations

import statistics
import time
import uuid
from datetime import UTC, datetime, timedelta

import asyncpg
from checkouts import measured

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"
AT = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
ROUNDS = ("first", "later", "review")  # each learner's answers today, in this order
FIGURES = ("very first", *ROUNDS)


async def measure(learners: int) -> dict[str, float]:
    """In this process, with whatever `bot` is on the path: CPU ms per first and later answer."""
    from bot.core.answer import AnswerWrite, Leech, PracticeDay
    from bot.core.model import Attempt, ItemState, Owner, Session
    from bot.core.review import Review
    from bot.storage import open_repository
    from bot.storage.daily import DailyRepository

    async def answer(repo: object, n: int, key: str, at: datetime, daily: object = None) -> None:
        session = await repo.get_session(f"s{n}")  # type: ignore[attr-defined]
        item = session.items[session.position]
        made = Attempt("discord", "guild", f"u{n}", "demo", item.question, None, "A", True, 1, at, session.id, key)
        card = Review("discord", f"u{n}", "demo", item.question, "{}", at, True)
        item.done = True
        session.position += 1
        day = PracticeDay("discord", f"u{n}", at, reviews=int(daily is not None))
        leech = None
        if daily is not None:  # a daily review's answer
            failures, _ = await daily.card_failures("discord", f"u{n}", ("demo", item.question))  # type: ignore[attr-defined]
            leech = Leech("demo", item.question, failures + 1, False) if n % 2 else None
        unit = AnswerWrite(session=session, attempt=made, card=card, day=day, leech=leech)
        await repo.write_answer(unit)  # type: ignore[attr-defined]

    name = f"bench_first_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(PG_ADMIN)
    await admin.execute(f'CREATE DATABASE "{name}"')
    url = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"
    try:
        repo = await open_repository(url)
        for n in range(learners):
            owner = Owner("discord", "guild", "user", f"u{n}")
            items = [ItemState("demo", f"q{i}") for i in range(1 + len(ROUNDS))]
            session = Session(
                id=f"s{n}", owner=owner, started_by=f"u{n}", started_by_name=f"u{n}", items=items, created_at=AT, updated_at=AT
            )
            await repo.create_session(session)
        marks = [time.process_time()]
        for n in range(learners):
            await answer(repo, n, f"k{n}y", AT - timedelta(days=1))
        marks.append(time.process_time())
        await repo.close()
        repo = await open_repository(url, migrate=False)  # has stored nothing of these learners
        daily = DailyRepository.beside(repo)
        try:
            marks.append(time.process_time())
            for round_ in ROUNDS:
                for n in range(learners):
                    await answer(repo, n, f"k{n}{round_}", AT, daily if round_ == "review" else None)
                marks.append(time.process_time())
        finally:
            await repo.close()
        spans = [marks[1] - marks[0], *(marks[i + 1] - marks[i] for i in range(2, len(marks) - 1))]  # not the reopening
        return {r: 1e3 * span / learners for r, span in zip(FIGURES, spans, strict=True)}
    finally:
        await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        await admin.close()


def _summary(runs: list[dict[str, float]]) -> str:
    very, first, later, review = (statistics.median(r.get(k, float("nan")) for r in runs) for k in FIGURES)
    return (
        f"CPU per answer, a learner's very first {very:.3f} ms, the day's first {first:.3f}, "
        f"a later one {later:.3f}, a daily review's {review:.3f}"
    )


def main() -> None:
    measured(__file__, __doc__ or "", 400, measure, lambda got: ", ".join(f"{r} {got[r]:.3f} ms" for r in FIGURES if r in got), _summary)


if __name__ == "__main__":
    main()
