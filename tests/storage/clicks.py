"""Clicks delivered to bot processes, played against the real repository (not a test module).

Each function stands for what one bot process does with the clicks it receives: read the quiz,
apply the click, save the quiz with its attempt and review card. Run in separate OS processes
(through multiprocessing) on PostgreSQL, or as tasks sharing one repository on SQLite.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.core.model import Attempt, ItemState, Owner, Session
from bot.core.ports import Conflict, Repository
from bot.core.review import Review
from bot.storage import open_repository

AT = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
Wait = Callable[[], Awaitable[None]]


def new_session(session_id: str, user: str, items: int) -> Session:
    return Session(
        id=session_id,
        owner=Owner("discord", "guild", "user", user),
        started_by=user,
        started_by_name=user,
        items=[ItemState("demo", f"q{n}") for n in range(items)],
        created_at=AT,
        updated_at=AT,
    )


def attempt(session: Session, key: str | None) -> Attempt:
    item = session.items[session.position]
    return Attempt("discord", "guild", session.started_by, "demo", item.question, None, "A", True, 1, AT, session.id, key)


def card(session: Session) -> Review:
    item = session.items[session.position]
    return Review("discord", session.started_by, "demo", item.question, "{}", AT, True)


async def click(repo: Repository, session_id: str, position: int, key: str, *, advance_after: int = 1) -> str:
    """Apply one click meant for the item at `position`, as the service does; say what happened.

    `saved`: recorded; `conflict`: the save was refused; `stale`: the quiz had moved on.
    The item advances once it has `advance_after` attempts.
    """
    session = await repo.get_session(session_id)
    assert session is not None
    if session.status != "active" or session.position != position:
        return "stale"
    made = attempt(session, key)
    item = session.current  # the session's own copy of the item, as the service changes it
    assert item is not None
    item.attempts += 1
    review = None
    if item.attempts >= advance_after:
        item.done = item.correct = True
        review = card(session)
        session.position += 1
        if session.position == len(session.items):
            session.status = "finished"
    try:
        await repo.save_session(session, made, review)
    except Conflict:
        return "conflict"
    return "saved"


async def same_click_rounds(repo: Repository, session_id: str, rounds: int, me: int, barrier: Wait) -> list[str]:
    """Receive the same click as the other process, `rounds` times, in three kinds of timing.

    Round r % 3 == 0: both read the quiz, then both save, with no action key (as from a front end
    that sends none): the conditional update alone decides.
    Round r % 3 == 1: both go as fast as they can.
    Round r % 3 == 2: the click is a first try that does not advance the item; process 0 records
    it, then process 1 gets it again (a redelivery: the quiz is where it was, so only the action
    key stops a second attempt), then process 0 gets the learner's next click, which advances.
    Returns the outcome of the shared click in each round.
    """
    outcomes = []
    for r in range(rounds):
        await barrier()
        key = f"click-{r}"
        if r % 3 == 0:
            session = await repo.get_session(session_id)
            assert session is not None
            await barrier()
            outcomes.append(await _save_read(repo, session, r, None))
        elif r % 3 == 1:
            outcomes.append(await click(repo, session_id, r, key))
        elif me == 0:
            outcomes.append(await click(repo, session_id, r, key, advance_after=2))
            await barrier()
            await barrier()
            assert await click(repo, session_id, r, f"{key}-next", advance_after=2) == "saved"
        else:
            await barrier()
            outcomes.append(await click(repo, session_id, r, key, advance_after=2))
            await barrier()
    return outcomes


async def _save_read(repo: Repository, session: Session, position: int, key: str | None) -> str:
    if session.position != position:
        return "stale"
    made = attempt(session, key)
    current = session.current
    assert current is not None
    current.attempts += 1
    review = card(session)
    session.position += 1
    try:
        await repo.save_session(session, made, review)
    except Conflict:
        return "conflict"
    return "saved"


@dataclass(frozen=True)
class Click:
    session_id: str
    index: int  # the learner's clicks in order: two per item (the first does not advance)
    to: frozenset[int]  # the processes it is delivered to


def plan(sessions: list[str], items: int, both: float, seed: int = 5) -> list[Click]:
    """Each learner's clicks, each sent to one process at random, or to both with probability `both`."""
    rng = random.Random(seed)
    clicks = []
    for sid in sessions:
        for index in range(items * 2):
            to = frozenset({0, 1}) if rng.random() < both else frozenset({rng.randrange(2)})
            clicks.append(Click(sid, index, to))
    return clicks


async def deliver(repo: Repository, clicks: list[Click], me: int, deadline_s: float = 120.0) -> dict[str, int]:
    """Play this process's share of the clicks, each learner waiting for the last answer it saw."""
    counts = {"saved": 0, "conflict": 0, "stale": 0}
    ends = time.monotonic() + deadline_s

    async def learner(mine: list[Click]) -> None:
        for c in mine:
            while await _applied(repo, c.session_id) < c.index:  # the learner has not seen the last reply yet
                if time.monotonic() > ends:
                    raise TimeoutError(f"click {c} waited too long")
                await asyncio.sleep(0.002)
            outcome = await click(repo, c.session_id, c.index // 2, f"{c.session_id}:{c.index}", advance_after=2)
            counts[outcome] += 1

    by_session: dict[str, list[Click]] = {}
    for c in clicks:
        if me in c.to:
            by_session.setdefault(c.session_id, []).append(c)
    await asyncio.gather(*(learner(mine) for mine in by_session.values()))
    return counts


async def _applied(repo: Repository, session_id: str) -> int:
    session = await repo.get_session(session_id)
    assert session is not None
    if session.position >= len(session.items):
        return 2 * len(session.items)
    return 2 * session.position + session.items[session.position].attempts


# ------------------------------------------------------------------ entries for OS processes


def run_same_click(url: str, session_id: str, rounds: int, me: int, barrier: Any, results: Any) -> None:
    """Process entry: `same_click_rounds` against its own repository; put the outcomes on `results`."""

    async def main() -> list[str]:
        repo = await open_repository(url, migrate=False)
        try:
            return await same_click_rounds(repo, session_id, rounds, me, lambda: asyncio.to_thread(barrier.wait, 60))
        finally:
            await repo.close()

    results.put((me, asyncio.run(main())))


def run_deliver(url: str, clicks: list[Click], me: int, barrier: Any, results: Any) -> None:
    """Process entry: `deliver` against its own repository; put the counts on `results`."""

    async def main() -> dict[str, int]:
        repo = await open_repository(url, migrate=False)
        try:
            await asyncio.to_thread(barrier.wait, 60)
            return await deliver(repo, clicks, me)
        finally:
            await repo.close()

    results.put((me, asyncio.run(main())))


def run_daily_answers(url: str, session_id: str, user: str, days: int, me: int, barrier: Any, results: Any) -> None:
    """Process entry: on each of `days` days, at the same moment as the other process, answer the
    learner's quiz `session_id` once, a daily review's answer (it counts in the day's reviews)."""
    from bot.core.answer import AnswerWrite, PracticeDay

    async def main() -> int:
        repo = await open_repository(url, migrate=False)
        try:
            for day in range(days):
                at = AT + timedelta(days=day)
                session = await repo.get_session(session_id)
                assert session is not None
                made = replace(attempt(session, f"{session_id}-{day}"), at=at)
                review = card(session)
                session.current.done = True  # type: ignore[union-attr]
                session.position += 1
                await asyncio.to_thread(barrier.wait, 60)
                unit = AnswerWrite(session=session, attempt=made, card=review, day=PracticeDay("discord", user, at, reviews=1))
                await repo.write_answer(unit)
            return days
        finally:
            await repo.close()

    results.put((me, asyncio.run(main())))
