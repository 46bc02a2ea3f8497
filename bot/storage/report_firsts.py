"""The report's counts from `first_attempts`: each learner's first attempt at each item, kept as attempts are stored.

A trigger on `attempts` (migration 0011) writes a row when a learner first attempts an item in a
scope, with the answer and the seconds it took, and counts the attempts until they are right, in
that scope and, on the row of their first attempt anywhere, in any. A report over a pack's first attempts (in one
scope or in every one, on one platform or on all) then reads one row per learner and item (400,000
rather than a million attempts at full size, in key order) and looks nothing up: one statement on
either database, the same rows as `report_queries.report_counts` (tests/report checks both ways).

Reports over a topic, since a date, or over every attempt are not kept: they still count the
attempts (`report_queries`).

The rows say what the attempts said when each was stored. They differ from a count made later only
if the attempts change under them: a quiz row deleted afterwards (a learner's data deleted with the
quiz they owned) leaves the seconds of the other learners' answers in it, which a count would drop;
and on PostgreSQL two attempts by one learner at one item stored at once by two transactions
(two quizzes) keep as first the one committed first.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Integer, String, case, cast, func, literal, literal_column, select, union_all
from sqlalchemy.sql import Select

from bot.core.report.model import Filters

from . import tables as t
from .report_queries import ANSWERS, LEARNERS, SECONDS, TRIES, _groups, _with_groups


def kept(filters: Filters) -> bool:
    """Whether `first_attempts` holds the rows this report chooses."""
    return filters.first_only and filters.topic is None and filters.since is None


def report_counts(filters: Filters, *, sqlite: bool) -> Select[Any]:
    """Rows of (kind, question_id, value, correct, n, up, low) for `Aggregates`, seconds included."""
    f = t.first_attempts.c
    textless = list(filters.textless)
    # Code answers all differ: their rows carry the grade's detail instead (the failing tests' sentences).
    answer: Any = case((f.question_id.in_(textless), func.coalesce(f.detail, literal(""))), else_=f.answer) if textless else f.answer
    if filters.scope is not None:  # the first attempts in the scope
        counted_tries, where = case((f.solved, f.tries)), f.scope == filters.scope
    else:  # the first attempts in any
        counted_tries, where = case((f.solved_any, f.tries_any)), f.tries_any.is_not(None)
    query = select(
        f.platform, f.user_id, f.question_id, cast(f.correct, Integer).label("correct"), cast(answer, String).label("value"),
        f.secs, counted_tries.label("tries"),
    ).where(f.pack_id == filters.pack, where)
    if filters.platform is not None:
        query = query.where(f.platform == filters.platform)
    # SQLite reads the table again for each use, in key order (the learners' scores need no sort);
    # copying 400,000 rows aside cost more (1.17 s against 1.03 s at full size, before the join below).
    chosen = query.cte("chosen").prefix_with("NOT MATERIALIZED" if sqlite else "MATERIALIZED")
    grouped = _groups(chosen)
    # A join on both: SQLite scans the groups and finds each learner's rows by the table's key
    # (0.45 s at full size, against 0.71 s for asking whether each row's learner is in each group).
    source, up, low = _with_groups(chosen, grouped, sqlite=False)
    none: Any = literal_column("NULL")
    answers = (
        select(
            literal(ANSWERS).label("kind"), chosen.c.question_id, chosen.c.value, chosen.c.correct,
            func.count().label("n"), func.sum(up).label("up"), func.sum(low).label("low"),
        )
        .select_from(source)
        .group_by(chosen.c.question_id, chosen.c.value, chosen.c.correct)
    )

    # The seconds and the tries are counted in one pass over the rows (one sort, not two), then apart.
    timed = (
        select(chosen.c.question_id, chosen.c.secs, chosen.c.tries, func.count().label("n"))
        .group_by(chosen.c.question_id, chosen.c.secs, chosen.c.tries)
        .cte("timed")
        .prefix_with("MATERIALIZED")
    )

    def counted(kind: str, column: Any, condition: Any) -> Select[Any]:
        return (
            select(
                literal(kind).label("kind"), timed.c.question_id, cast(column, String).label("value"), none.label("correct"),
                func.sum(timed.c.n).label("n"), none.label("up"), none.label("low"),
            )
            .where(condition)
            .group_by(timed.c.question_id, column)
        )

    everyone = select(
        literal(LEARNERS).label("kind"), none.label("question_id"), none.label("value"), none.label("correct"),
        func.coalesce(func.max(grouped.c.everyone), 0).label("n"), none.label("up"), none.label("low"),
    )
    tries = counted(TRIES, timed.c.tries, timed.c.tries.is_not(None))
    seconds = counted(SECONDS, timed.c.secs, timed.c.secs >= 0)
    return union_all(answers, tries, seconds, everyone)  # type: ignore[return-value]
