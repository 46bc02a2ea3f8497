"""The statements behind a report's counts: every pass over the attempts they need, made once.

They serve the reports the stored first attempts do not (`report_firsts`): over a topic, since a
date, or over every attempt.

A pack's attempts are read in two orders, each straight from an index that holds every column the
pass needs (migration 0010), never sorted:

- by learner, item and attempt (`ix_attempts_pack_learner`): each learner's first attempt at each
  item, whether it was right, and the attempts up to the first right one;
- by quiz and attempt (`ix_attempts_pack_session`): when each chosen attempt's item was shown (the
  previous answer in the quiz, or the quiz's start).

Everything after the first pass works on one row per learner and item (or per learner): the 27%
groups are found among the learners, not among their answers. A few hundred rows come back, one
per item and answer, item and number of tries, item and seconds, tagged by `kind`.

SQLite and PostgreSQL differ in what is cheap: SQLite keeps the first attempt of a group with one
`min()` over the index, counts tries with an index lookup for the few learners wrong at first, and
looks each chosen attempt's previous answer up in the quiz index, all in one statement.
PostgreSQL numbers the attempts with a window function that streams over the index, and finds
when an item was shown with another window over the quiz index, in a second statement run at the
same time on another connection (`report_seconds`). Both were measured at full size with
`bench/report_bench.py`; the other choices were slower there.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    Float,
    Integer,
    String,
    and_,
    case,
    cast,
    func,
    literal,
    literal_column,
    select,
    union_all,
)
from sqlalchemy.dialects.postgresql import distinct_on
from sqlalchemy.sql import ColumnElement, Select
from sqlalchemy.sql.selectable import CTE

from bot.core.report.model import Filters

from . import tables as t

GROUP_PERCENT = 27  # the upper and lower groups of the discrimination index
WORK_MEM = "64MB"  # PostgreSQL: memory for the report's hash joins and aggregates (one connection, one statement)

# The rows' kinds: answers given (with the groups' counts), attempts to the first right one,
# seconds to answer (SQLite; PostgreSQL counts them in a statement of their own), and the number
# of learners.
ANSWERS, TRIES, SECONDS, LEARNERS = "a", "t", "s", "e"


def where(filters: Filters, table: Any = None) -> ColumnElement[bool]:
    """The attempts a report reads (of `table`, an alias of attempts, or attempts itself)."""
    a = (table if table is not None else t.attempts).c
    conditions: list[ColumnElement[bool]] = [a.pack_id == filters.pack]
    if filters.topic is not None:
        conditions.append(a.topic == filters.topic)
    if filters.since is not None:
        conditions.append(a.at >= filters.since)
    if filters.scope is not None:
        conditions.append(a.scope == filters.scope)
    if filters.platform is not None:
        conditions.append(a.platform == filters.platform)
    return and_(*conditions)


def _int(value: Any) -> Any:
    return cast(value, Integer)


def _firsts_sqlite(filters: Filters) -> CTE:
    """Each learner's first attempt at each item: (platform, user_id, question_id, id, correct, tries).

    `min(id * 2 + correct)` keeps the first attempt's id and verdict in one number. The tries to
    the first right attempt are 1 when the first was right, none when none was, and otherwise the
    attempts up to the first right one, counted in the index.
    """
    a = t.attempts.c
    first = func.min(a.id * 2 + _int(a.correct))
    raw = (
        select(a.platform, a.user_id, a.question_id, first.label("m"), func.min(case((a.correct, a.id))).label("right_id"))
        .where(where(filters))
        .group_by(a.platform, a.user_id, a.question_id)
        .cte("first_raw")
        .prefix_with("MATERIALIZED")
    )
    b = t.attempts.alias("b")
    before = (
        select(func.count())
        .select_from(b)
        .where(
            where(filters, b),
            b.c.platform == raw.c.platform,
            b.c.user_id == raw.c.user_id,
            b.c.question_id == raw.c.question_id,
            b.c.id <= raw.c.right_id,
        )
        .scalar_subquery()
    )
    correct = raw.c.m % 2
    tries = case((raw.c.right_id.is_(None), None), (correct == 1, 1), else_=before)
    return (
        select(
            raw.c.platform,
            raw.c.user_id,
            raw.c.question_id,
            (raw.c.m // 2).label("id"),
            correct.label("correct"),
            tries.label("tries"),
        )
        .cte("firsts")
        .prefix_with("MATERIALIZED")
    )


def _firsts_postgresql(filters: Filters) -> CTE:
    """Each learner's first attempt at each item, numbering the attempts in index order (no sort)."""
    a = t.attempts.c
    numbered = (
        select(
            a.platform,
            a.user_id,
            a.question_id,
            a.id,
            a.correct,
            func.row_number().over(partition_by=(a.platform, a.user_id, a.question_id), order_by=a.id).label("n"),
        )
        .where(where(filters))
        .subquery("numbered")
    )
    n = numbered.c
    return (
        select(
            n.platform,
            n.user_id,
            n.question_id,
            func.min(n.id).label("id"),
            func.max(case((and_(n.n == 1, n.correct), 1), else_=0)).label("correct"),
            func.min(case((n.correct, n.n))).label("tries"),
        )
        .group_by(n.platform, n.user_id, n.question_id)
        .cte("firsts")
        .prefix_with("MATERIALIZED")
    )


def _every(filters: Filters) -> CTE:
    """Every attempt, for a report over all of them: (platform, user_id, question_id, id, correct)."""
    a = t.attempts.c
    return (
        select(a.platform, a.user_id, a.question_id, a.id, _int(a.correct).label("correct"))
        .where(where(filters))
        .cte("every")
        .prefix_with("MATERIALIZED")
    )


def _learner(table: Any) -> Any:
    """One column naming a learner (platform names hold no colon), for a lookup both databases index."""
    return table.c.platform + ":" + table.c.user_id


def _groups(chosen: CTE) -> CTE:
    """Each learner's group: 1 in `up` for the top 27% by share right, 1 in `low` for the bottom 27%.

    Learners are placed by (share right descending, platform, user id), one place each; a group
    holds 27% of them rounded down, at least one. `everyone` is the number of learners.
    """
    score = cast(func.sum(chosen.c.correct), Float) / func.count()
    learners = (
        select(chosen.c.platform, chosen.c.user_id, score.label("score"))
        .group_by(chosen.c.platform, chosen.c.user_id)
        .cte("learners")
        .prefix_with("MATERIALIZED")
    )
    placed = select(
        learners.c.platform,
        learners.c.user_id,
        _learner(learners).label("learner"),
        func.row_number().over(order_by=(learners.c.score.desc(), learners.c.platform, learners.c.user_id)).label("place"),
        func.count().over().label("everyone"),
    ).subquery("placed")
    # 27%, rounded down: in whole numbers (PostgreSQL's CAST of 3.78 to an integer gives 4, SQLite's 3).
    size = (placed.c.everyone * GROUP_PERCENT) // 100
    group = case((size < 1, 1), else_=size)
    return (
        select(
            placed.c.platform,
            placed.c.user_id,
            placed.c.learner,
            case((placed.c.place <= group, 1), else_=0).label("up"),
            case((placed.c.place > placed.c.everyone - group, 1), else_=0).label("low"),
            placed.c.everyone,
        )
        .cte("grouped")
        .prefix_with("MATERIALIZED")
    )


def _with_groups(chosen: CTE, grouped: CTE, *, sqlite: bool) -> tuple[Any, Any, Any]:
    """(the chosen rows with their learners' groups, 1 when upper, 1 when lower).

    PostgreSQL joins the groups (a hash join). SQLite, without statistics, planned that join as a
    scan of the groups for every row: it is asked instead whether the learner is IN each group, a
    lookup in an index it builds once.
    """
    if not sqlite:
        joined = chosen.join(grouped, and_(grouped.c.platform == chosen.c.platform, grouped.c.user_id == chosen.c.user_id))
        return joined, grouped.c.up, grouped.c.low

    def member(flag: Any) -> Any:
        return case((_learner(chosen).in_(select(grouped.c.learner).where(flag == 1)), 1), else_=0)

    return chosen, member(grouped.c.up), member(grouped.c.low)


def _seconds_sqlite(chosen: CTE, pack: str) -> Select[Any]:
    """(question_id, secs) of each chosen attempt in a quiz: its previous answer is looked up in the index."""
    a, s, p = t.attempts.alias("timed"), t.sessions, t.attempts.alias("previous")
    previous = (
        select(p.c.at)
        .where(p.c.pack_id == pack, p.c.session_id == a.c.session_id, p.c.id < a.c.id)
        .order_by(p.c.id.desc())
        .limit(1)
        .scalar_subquery()
    )
    span = (func.julianday(a.c.at) - func.julianday(func.coalesce(previous, s.c.created_at))) * 86400.0
    secs = cast(func.round(span), Integer).label("secs")
    return select(chosen.c.question_id, secs).select_from(chosen.join(a, a.c.id == chosen.c.id).join(s, s.c.id == a.c.session_id))


def _seconds_postgresql(chosen: CTE, pack: str) -> Select[Any]:
    """As `_seconds_sqlite`, with the previous answer from a window over the quiz order index.

    The window runs over every attempt in a quiz; the chosen ones are kept by id (a hash of the
    chosen ids), and the index holds the item, so nothing is joined back to the attempts.
    """
    a, s = t.attempts.c, t.sessions
    timed = (
        select(
            a.id,
            a.question_id,
            a.session_id,
            a.at,
            func.lag(a.at).over(partition_by=a.session_id, order_by=a.id).label("previous"),
        )
        .where(a.pack_id == pack, a.session_id.is_not(None))
        .subquery("timed")
    )
    span = func.extract("epoch", timed.c.at - func.coalesce(timed.c.previous, s.c.created_at))
    secs = cast(func.round(span), Integer).label("secs")
    return (
        select(timed.c.question_id, secs)
        .select_from(timed.join(s, s.c.id == timed.c.session_id))
        # Inside a CASE the IN stays a lookup in a hash of the chosen ids: as a bare condition
        # PostgreSQL made it a join and hashed the million timed rows instead.
        .where(case((timed.c.id.in_(select(chosen.c.id)), True), else_=False))
    )


def report_counts(filters: Filters, *, sqlite: bool) -> Select[Any]:
    """Rows of (kind, question_id, value, correct, n, up, low) for `Aggregates` (on PostgreSQL, but the seconds)."""
    firsts = _firsts_sqlite(filters) if sqlite else _firsts_postgresql(filters)
    chosen = firsts if filters.first_only else _every(filters)
    grouped = _groups(chosen)
    source, up, low = _with_groups(chosen, grouped, sqlite=sqlite)
    a = t.attempts.alias("given")
    textless = list(filters.textless)
    # Code answers all differ: their rows carry the grade's detail instead (the failing tests' sentences).
    detail = func.coalesce(a.c.detail, literal(""))
    answer: Any = case((chosen.c.question_id.in_(textless), detail), else_=a.c.answer) if textless else a.c.answer
    answers = (
        select(
            literal(ANSWERS).label("kind"),
            chosen.c.question_id,
            cast(answer, String).label("value"),
            chosen.c.correct,
            func.count().label("n"),
            func.sum(up).label("up"),
            func.sum(low).label("low"),
        )
        .select_from(source.join(a, a.c.id == chosen.c.id))
        .group_by(chosen.c.question_id, answer, chosen.c.correct)
    )
    tries = (
        select(
            literal(TRIES).label("kind"),
            firsts.c.question_id,
            cast(firsts.c.tries, String).label("value"),
            literal_column("NULL").label("correct"),
            func.count().label("n"),
            literal_column("NULL").label("up"),
            literal_column("NULL").label("low"),
        )
        .where(firsts.c.tries.is_not(None))
        .group_by(firsts.c.question_id, firsts.c.tries)
    )
    everyone = select(
        literal(LEARNERS).label("kind"),
        literal_column("NULL").label("question_id"),
        literal_column("NULL").label("value"),
        literal_column("NULL").label("correct"),
        func.coalesce(func.max(grouped.c.everyone), 0).label("n"),
        literal_column("NULL").label("up"),
        literal_column("NULL").label("low"),
    )
    if not sqlite:
        return union_all(answers, tries, everyone)  # type: ignore[return-value]
    timed = _seconds_sqlite(chosen, filters.pack).cte("seconds").prefix_with("MATERIALIZED")
    seconds = (
        select(
            literal(SECONDS).label("kind"),
            timed.c.question_id,
            cast(timed.c.secs, String).label("value"),
            literal_column("NULL").label("correct"),
            func.count().label("n"),
            literal_column("NULL").label("up"),
            literal_column("NULL").label("low"),
        )
        .where(timed.c.secs >= 0)
        .group_by(timed.c.question_id, timed.c.secs)
    )
    return union_all(answers, tries, seconds, everyone)  # type: ignore[return-value]


def _chosen_ids(filters: Filters) -> CTE:
    """(id, question_id) of the attempts a report reads: each learner's first at each item, or every one."""
    a = t.attempts.c
    if filters.first_only:
        # DISTINCT ON keeps the first row of each learner and item straight from the index: 0.2 s of
        # CPU at full size, against 0.57 s for min(id) grouped (a hash over a scan of the table).
        query = (
            select(a.id, a.question_id)
            .ext(distinct_on(a.platform, a.user_id, a.question_id))
            .order_by(a.platform, a.user_id, a.question_id, a.id)
        )
    else:
        query = select(a.id, a.question_id)
    return query.where(where(filters)).cte("chosen_ids").prefix_with("MATERIALIZED")


def report_seconds(filters: Filters) -> Select[Any]:
    """PostgreSQL's second statement, run beside `report_counts`: rows of (question_id, secs, n), secs >= 0.

    It finds the chosen attempts again (one pass over the learner index, DISTINCT ON, without the verdicts)
    rather than wait for the first statement: the two run at once, on two connections and two
    server processes. (On SQLite, two connections at once took more time than one statement.)
    """
    chosen = _chosen_ids(filters)
    timed = _seconds_postgresql(chosen, filters.pack).subquery("seconds")
    return (
        select(timed.c.question_id, timed.c.secs, func.count().label("n"))
        .where(timed.c.secs >= 0)
        .group_by(timed.c.question_id, timed.c.secs)
    )
