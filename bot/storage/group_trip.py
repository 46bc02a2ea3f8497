"""SQLite: a group commit's check, writes and commit in one trip to the database's thread.

A group's transaction (`writer.py`) went to SQLite's thread four times: its check (the sessions'
versions, the attempts' keys already stored, the unfinished work still open), its writes, its
commit. Between two trips it waited for the event loop, and flat out the loop was busy taking the
previous group's answers on: in bench/core_bench.py the check's result waited about 20 ms to be
taken up, for 2.6 ms on the thread, and the transaction held SQLite's only writer for all of it.

Here the thread runs the check, decides each save's outcome by the same rule as the trips did
(`refusals`), runs the kept saves' writes in the same order, commits when nothing else is to be
written in the transaction, and comes back once. Values are converted by the column types as the
trips converted them (`prepared.py`), but each table's rows go in one statement (`INSERT ... VALUES
(...), (...)`, `UPDATE ... FROM (VALUES ...)`; a few, of up to 16 rows in powers of two): SQLite lets go of
the GIL for every step, and written row by row in the thread each row waited to take it back while
the loop was busy. Listeners of `before_cursor_execute` hear each statement once it ran. An error,
a write that changed other rows than it must, or a commit that failed comes back as from the trips.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import String, and_, bindparam, column, delete, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.core.ports import Conflict, WorkTaken

from . import tables as t
from .answers import WORK_TAKEN
from .codec import SESSION_FIELDS
from .prepared import Form, Prepared, announce, bound, driver_error
from .sqlite_link import OneTripConnection, _run_all  # the driver's own run of statements in its thread
from .work_tables import unfinished_work
from .writer import BatchMismatch, SaveOp

Outcomes = list[BaseException | None]
STATEMENT_ROWS = 16  # rows in one statement at most (a power of two): see `_sizes`
NEEDS = (3, 33, 0)  # SQLite's UPDATE ... FROM


def refusals(ops: Sequence[SaveOp], current: dict[str, int], stored: set[str], open_work: set[str]) -> Outcomes:
    """Each save's refusal, or None: a stale version, a key stored or repeated in the group, work already taken."""
    outcomes: Outcomes = [None] * len(ops)
    seen_ids: set[str] = set()
    stored = set(stored)
    for n, op in enumerate(ops):
        sid = op.row["id"]
        key = op.attempt["key"] if op.attempt is not None else None
        if current.get(sid) != op.expected_version or sid in seen_ids:
            outcomes[n] = Conflict(f"session {sid} changed since it was read")
        elif key is not None and key in stored:
            outcomes[n] = Conflict("this action was already recorded")
        elif op.work is not None and op.work not in open_work:
            outcomes[n] = WorkTaken(WORK_TAKEN)
        else:
            seen_ids.add(sid)
            if key is not None:
                stored.add(key)
    return outcomes


def merged(reviews: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Two cards for one question in one group: the later one wins and both answers count."""
    kept: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for r in reviews:
        key = (r["platform"], r["user_id"], r["pack_id"], r["question_id"])
        if key in kept:
            r = {**r, "answers": kept[key]["answers"] + r["answers"]}
        kept[key] = r
    return list(kept.values())


def update_row(op: SaveOp) -> dict[str, Any]:
    """The conditional update's parameters for a save."""
    return {**{k: op.row[k] for k in SESSION_FIELDS}, "b_id": op.row["id"], "b_expected": op.expected_version}


def _json_values(name: str) -> Any:
    """The values of a JSON array given as one parameter, as a subquery for `IN`."""
    return select(column("value")).select_from(func.json_each(bindparam(name, type_=String)))


_s, _a, _w = t.sessions.c, t.attempts.c, unfinished_work.c
# One row: the sessions' versions, the keys already stored, the work rows still open (each a JSON array).
_CHECK = select(
    select(func.json_group_array(func.json_array(_s.id, _s.version))).where(_s.id.in_(_json_values("ids"))).scalar_subquery(),
    select(func.json_group_array(_a.key)).where(_a.key.in_(_json_values("keys"))).scalar_subquery(),
    select(func.json_group_array(_w.id)).where(_w.id.in_(_json_values("work"))).scalar_subquery(),
)
_SETTLE_WORK = Prepared(delete(unfinished_work).where(_w.id == bindparam("b_id")))
_SETTLE_ITEM = Prepared(
    delete(unfinished_work).where(and_(_w.platform == bindparam("b_platform"), _w.user_id == bindparam("b_user"), _w.item == bindparam("b_item")))
)


@dataclass(frozen=True)
class _Sql:
    """The check and the settling deletes, compiled once for SQLite."""

    check: str
    check_order: tuple[str, ...]
    work: str
    item: Form


_compiled: dict[str, _Sql] = {}


def _sql(c: AsyncConnection) -> _Sql:
    if c.dialect.name not in _compiled:
        check = _CHECK.compile(dialect=c.dialect)
        work = _SETTLE_WORK.form(c.dialect, ("b_id",))
        item = _SETTLE_ITEM.form(c.dialect, ("b_platform", "b_user", "b_item"))
        assert work is not None and item is not None  # every parameter is given
        _compiled[c.dialect.name] = _Sql(check.string, tuple(check.positiontup or ()), work[0], item)
    return _compiled[c.dialect.name]


def _sizes(n: int) -> list[int]:
    """`n` rows as statements of at most STATEMENT_ROWS, in powers of two (largest first).

    Few texts, so the driver's statement cache keeps them; and small ones, as each connection's
    cache holds a copy of the values last bound to every statement in it.
    """
    full, rest = divmod(n, STATEMENT_ROWS)
    return [STATEMENT_ROWS] * full + [1 << bit for bit in reversed(range(rest.bit_length())) if rest >> bit & 1]


def _statements(head: str, tail: str, values: list[tuple[Any, ...]]) -> list[tuple[str, list[Any]]]:
    """The rows as `{head} VALUES (...), (...){tail}` statements (each stepped once for all its rows), each with its parameters as one row."""
    row = "(" + ", ".join("?" * len(values[0])) + ")" if values else ""
    made, start = [], 0
    for size in _sizes(len(values)):
        chunk = values[start : start + size]
        made.append((f"{head} VALUES {', '.join([row] * size)}{tail}", [tuple(v for one in chunk for v in one)]))
        start += size
    return made


def _insert(form: Form, rows: list[dict[str, Any]]) -> list[tuple[str, list[Any]]]:
    """The one-row INSERT (or upsert) of `form` made INSERTs of many rows a statement."""
    head, rest = form[0].split(" VALUES ", 1)
    close = rest.index(")") + 1  # the row's placeholders: "(?, ?, ...)"
    return _statements(head, rest[close:], [bound(form[1], row) for row in rows])


def _update(form: Form, ops: Sequence[SaveOp]) -> list[tuple[str, list[Any]]]:
    """The sessions' conditional updates, many a statement: `UPDATE ... FROM (VALUES ...)`, each row on its id and version."""
    names = [name for name, _ in form[1]]
    v = {name: f"v.column{n}" for n, name in enumerate(names, 1)}  # a VALUES subquery's columns
    sets = ", ".join(f"{t.sessions.c[name].name} = {v[name]}" for name in SESSION_FIELDS)
    where = f"sessions.id = {v['b_id']} AND sessions.version = {v['b_expected']}"
    made = _statements("", "", [bound(form[1], update_row(op)) for op in ops])
    return [(f"UPDATE sessions SET {sets} FROM ({sql}) AS v WHERE {where}", params) for sql, params in made]  # noqa: S608  (names and placeholders only)


Step = tuple[str, list[tuple[str, list[Any]]], int | None]  # what it writes, its statements each with its rows' parameters, the rows they must change (None: any)


@dataclass
class Trip:
    """A group's check, then (made here beforehand) every save's writes; what the check decided and what ran."""

    ops: Sequence[SaveOp]
    check: tuple[str, tuple[str, ...]]
    steps: list[Step]
    commit: bool
    outcomes: Outcomes = field(default_factory=list)
    written: bool = False  # every save was kept, and its writes ran (and were committed when `commit`)
    ran: list[tuple[str, list[Any]]] = field(default_factory=list)  # each write run and its rows, for listeners
    off: tuple[str, int, int] | None = None  # a write whose count was off: what it writes, its count, the count it must have

    def decide(self, found: Sequence[str]) -> bool:
        """Each save's outcome from the check's row (versions, keys stored, work open); whether every save is kept."""
        versions, keys, work = (orjson.loads(v) for v in found)
        self.outcomes = refusals(self.ops, dict(versions), set(keys), set(work))
        return all(outcome is None for outcome in self.outcomes)

    def run(self, db: sqlite3.Connection) -> sqlite3.Error | None:
        """In the database's thread: check and decide; when every save is kept, write and commit.

        A count that is off stops before the commit. A group with a save refused is not written
        here: the caller writes the others (their cards merge differently), as the trips did.
        """
        try:
            cursor = db.execute(*self.check)
            found = cursor.fetchone()
            cursor.close()
        except sqlite3.Error as exc:
            return exc
        if not self.decide(found):
            return None
        statements = [statement for _, made, _ in self.steps for statement in made]
        counts, error, _ = _run_all(db, statements)
        self.ran = statements[: len(counts) + (error is not None)]
        if error is not None:
            return error
        ran = iter(counts)
        for what, made, must in self.steps:
            count = sum(next(ran) for _ in made)
            if must is not None and count != must:
                self.off = (what, count, must)
                return None  # nothing is committed: the caller raises BatchMismatch
        if self.commit:
            try:
                db.commit()
            except sqlite3.Error as exc:
                self.ran.append(("COMMIT", []))
                return exc
        self.written = True
        return None


async def write_group(
    c: AsyncConnection, ops: Sequence[SaveOp], update: Prepared, attempts: Prepared, reviews: Prepared, *, commit: bool
) -> Trip:
    """Check a group of saves and, when none is refused, write them in the same trip; commit too when `commit`.

    Returns the trip: each save's outcome, and whether the saves were written. Raises what the trips
    raised: the driver's error as SQLAlchemy wraps it, or `BatchMismatch` when a write changed other
    rows than the check predicted (the transaction is then rolled back). Where the one trip does not
    apply (an SQLite before 3.33, or a statement that needs SQLAlchemy to fill a value in) only the
    check runs, through SQLAlchemy, and the caller writes the kept saves.
    """
    sql = _sql(c)
    attempt_rows = [op.attempt for op in ops if op.attempt is not None]
    lists = {
        "ids": [op.row["id"] for op in ops],
        "keys": [row["key"] for row in attempt_rows if row["key"] is not None],
        "work": [op.work for op in ops if op.work is not None],
    }
    check = (sql.check, tuple(orjson.dumps(lists[name]).decode() for name in sql.check_order))
    driver = (await c.get_raw_connection()).driver_connection
    steps = _steps(c, sql, ops, attempt_rows, update, attempts, reviews) if sqlite3.sqlite_version_info >= NEEDS else None
    if steps is None or not isinstance(driver, OneTripConnection):
        trip = Trip(ops, check, [], commit=False)
        trip.decide(tuple((await c.exec_driver_sql(*check)).one()))
        return trip
    trip = Trip(ops, check, steps, commit)
    error = await driver.run_in_thread(trip.run)
    announce(c, *check, many=False)
    for statement, rows in trip.ran:
        if statement != "COMMIT":
            announce(c, statement, rows, many=True)
    if error is not None:
        failed: tuple[str, Any] = trip.ran[-1] if trip.ran else check  # the statement that failed (a write, or the check)
        raise driver_error(c, *failed, error, sqlite3.Error) from error
    if trip.off is not None:
        what, count, must = trip.off
        if what == "work":
            raise BatchMismatch(WORK_TAKEN if must == 1 else f"{count} of {must} work rows settled")
        raise BatchMismatch(f"{count} of {must} sessions updated")
    return trip


def _steps(
    c: AsyncConnection, sql: _Sql, ops: Sequence[SaveOp], attempt_rows: list[dict[str, Any]], update: Prepared, attempts: Prepared, reviews: Prepared
) -> list[Step] | None:
    """Every save's writes in the trips' order, each table's rows in few statements; None if one needs SQLAlchemy."""
    review_rows = merged([op.review for op in ops if op.review is not None])
    update_form = update.form(c.dialect, tuple(update_row(ops[0])))
    attempt_form = attempts.form(c.dialect, tuple(attempt_rows[0])) if attempt_rows else None
    review_form = reviews.form(c.dialect, tuple(review_rows[0])) if review_rows else None
    if update_form is None or (attempt_rows and attempt_form is None) or (review_rows and review_form is None):
        return None
    work = [(op.work,) for op in ops if op.work is not None]
    items = [
        bound(sql.item[1], {"b_platform": u.attempt.platform, "b_user": u.attempt.user_id, "b_item": u.settles})
        for u in (op.parts for op in ops)
        if u is not None and u.settles is not None and u.attempt is not None
    ]
    steps: list[Step] = []
    if work:
        steps.append(("work", [(sql.work, work)], len(work)))
    if items:
        steps.append(("items", [(sql.item[0], items)], None))
    steps.append(("sessions", _update(update_form, ops), len(ops)))
    if attempt_form is not None:
        steps.append(("attempts", _insert(attempt_form, attempt_rows), None))
    if review_form is not None:
        steps.append(("reviews", _insert(review_form, review_rows), None))
    return steps
