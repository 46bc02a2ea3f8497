"""PostgreSQL: a plain graded click stored in one statement, one round trip (no BEGIN, no COMMIT).

A click on a quiz item changes the session's row, adds the attempt and moves the review card. In
a transaction that is seven round trips (BEGIN, the session's conditional update, the attempt,
the card, the learner's row read under its lock for the practice day, COMMIT, and a read before);
here the first four writes are one statement of data-modifying CTEs, which PostgreSQL runs
all or nothing in autocommit:

- `known`: the learner's row says their practice day is stored already (the zone and the streak's
  last day this process saw it store): only then does the answer change nothing of the learner,
  and only then does this statement write anything;
- `s`: the session's conditional update (`WHERE version = :expected`), as in a transaction;
- the attempt and the card are inserted only when `s` changed its row, and so are a daily review's
  count of the day (`ad`, added to) and its card's failures (`lf`, a leech's too).

A code answer also settles its row of unfinished work (`Attempt.work`), and every process's row
for its item (`AnswerWrite.settles`). Its statement first locks its own row (`lw`, `FOR UPDATE`):
`s` changes the session only when that row is there, so an answer whose row another process took
as abandoned (the learner was told to send it again) stores nothing, as in a transaction; held
locked, the row cannot be taken before this statement deletes it (`w`, only when `s` changed its
row; a process taking it waits, then finds it gone).

The statement returns whether `known` held, whether `s` changed its row and (a code answer) whether
its work row was there. When `known` did not hold, nothing was written and the caller stores the
answer in a transaction as before.

A learner this process has no guess for (the day's first answer, or one another process stored)
costs one more statement, not a transaction (`write_first`): the learner's zone and streak are read,
the core's rule (`PracticeDay.apply`) moves the streak, and the answer's statement then checks that
the row still holds what was read (`known`, with the row locked: a concurrent change fails it) and
writes the moved streak (`lu`) with the rest. A learner with no row yet (their very first answer)
has it made by the statement (`known` is then the row's insert, `ON CONFLICT DO NOTHING`), with the
streak the core's rule gave the first day, only while the session's row is still the version read
(`lk`, locked until the statement ends, so the insert and the session's update stand or fall
together); a row another process made first fails it, and the answer goes to the transaction. A
code answer of a learner with no row is stored in a transaction.

A stored attempt key raises IntegrityError, which rolls the whole statement back as it would a
transaction. The practice-day rule stays the core's (`PracticeDay.apply`): this only compares the
values the core's rule stored.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Boolean, Date, Integer, String, Text, and_, bindparam, select, text

from bot.core.daily.learner import Learner
from bot.core.model import Streak

from .daily_rows import learner_values
from .daily_tables import daily_learners
from .prepared import Prepared
from .tables import UTCDateTime, attempts, reviews

if TYPE_CHECKING:
    from bot.core.answer import PracticeDay

    from .pg_link import Direct
    from .writer import SaveOp

Guesses = dict[tuple[str, str], tuple[str, date]]  # learner -> (zone, practice day) this process last stored

_ATTEMPT = ("platform", "scope", "user_id", "pack_id", "question_id", "topic", "answer", "correct", "points", "at",
            "session_id", "key", "mode", "detail")  # fmt: skip
_REVIEW = ("platform", "user_id", "pack_id", "question_id", "card", "due", "correct", "answers")
_TYPES: dict[str, Any] = {
    "correct": Boolean(), "points": Integer(), "at": UTCDateTime(), "due": UTCDateTime(), "answers": Integer(),
    "answer": Text(), "detail": Text(), "card": Text(), "data": Text(), "position": Integer(), "version": Integer(),
    "updated_at": UTCDateTime(), "b_expected": Integer(), "l_day": Date(),
}  # fmt: skip
_STREAK = ("streak_current", "streak_longest", "streak_freezes", "streak_last_day", "streak_frozen_days")
_TYPES.update({f"{side}_{c}": Date() if c == "streak_last_day" else Integer() for side in "on" for c in _STREAK})
_TYPES.update(l_now=UTCDateTime(), d_day=Date(), d_reviews=Integer(), d_new=Integer(), d_channel=Integer())
_TYPES.update(f_failures=Integer(), f_suspended=Boolean())
_TYPES.update({f"m_{c.name}": c.type for c in daily_learners.c})
_SQL_TYPES = ((String, "TEXT"), (Boolean, "BOOLEAN"), (Integer, "INTEGER"), (Date, "DATE"), (UTCDateTime, "TIMESTAMP"))


def _cast(name: str, column: Any) -> str:
    """The bound value cast to its column's type (a string as TEXT: too long a value fails the insert, as it would in SQLAlchemy's)."""
    sql_type = next(sql for kind, sql in _SQL_TYPES if isinstance(column.type, kind))
    return f"CAST(:{name} AS {sql_type})"


def _values(prefix: str, table: Any, columns: Iterable[str]) -> str:
    """Each column's bound value (`prefix` + its name) cast to its type, for an `INSERT ... SELECT`."""
    return ", ".join(_cast(f"{prefix}{c}", table.c[c]) for c in columns)


# A learner's very first answer makes their row (every column, as `learner_values` gives it) while
# the session is still the version read, locked: the row and the answer are stored together or not at all.
_MADE = f"""
lk AS (
    SELECT id FROM sessions WHERE id = :b_id AND version = :b_expected FOR UPDATE
), known AS (
    INSERT INTO daily_learners ({", ".join(c.name for c in daily_learners.c)})
    SELECT {_values("m_", daily_learners, daily_learners.c.keys())} FROM lk
    ON CONFLICT DO NOTHING
    RETURNING 1
)"""  # noqa: S608 (made once at import from the table's own column names; every value is a bound parameter)


@functools.cache
def _statement(
    with_card: bool, with_work: bool = False, moves: bool = False, counts: bool = False, leech: bool = False, made: bool = False
) -> Any:
    card = (
        f"""
, r AS (
    INSERT INTO reviews ({", ".join(_REVIEW)})
    SELECT {_values("r_", reviews, _REVIEW)} FROM s
    ON CONFLICT (platform, user_id, pack_id, question_id) DO UPDATE SET
        card = excluded.card, due = excluded.due, correct = excluded.correct,
        answers = reviews.answers + excluded.answers
)"""  # noqa: S608 (made once at import from this module's constant column names; every value is a bound parameter)
        if with_card
        else ""
    )
    lock, held, settle, worked = "", "", "", "1"
    if with_work:
        lock = """
lw AS (
    SELECT id FROM unfinished_work WHERE id = :w_id AND EXISTS (SELECT 1 FROM known) FOR UPDATE
), """
        held = " AND EXISTS (SELECT 1 FROM lw)"
        settle = """
, w AS (
    DELETE FROM unfinished_work
    WHERE (id IN (SELECT id FROM lw) OR (platform = :a_platform AND user_id = :a_user_id AND item = :w_item))
        AND EXISTS (SELECT 1 FROM s)
)"""
        worked = "(SELECT count(*) FROM lw)"
    day, streak = "streak_last_day = :l_day", ""
    if moves:  # the row still as read, held until the statement ends; the streak moved with the answer
        day = " AND ".join(f"{c} IS NOT DISTINCT FROM :o_{c}" for c in _STREAK) + " FOR UPDATE"
        streak = f"""
, lu AS (
    UPDATE daily_learners SET {", ".join(f"{c} = :n_{c}" for c in _STREAK)}, updated_at = :l_now
    WHERE platform = :l_platform AND user_id = :l_user AND EXISTS (SELECT 1 FROM s)
)"""  # noqa: S608 (as below)
    counted = (
        """
, ad AS (
    INSERT INTO daily_days (platform, user_id, day, reviews, new, channel)
    SELECT CAST(:l_platform AS TEXT), CAST(:l_user AS TEXT), CAST(:d_day AS DATE), CAST(:d_reviews AS INTEGER),
        CAST(:d_new AS INTEGER), CAST(:d_channel AS INTEGER) FROM s
    ON CONFLICT (platform, user_id, day) DO UPDATE SET reviews = daily_days.reviews + excluded.reviews,
        new = daily_days.new + excluded.new, channel = daily_days.channel + excluded.channel
)"""
        if counts
        else ""
    )
    failed = (
        """
, lf AS (
    INSERT INTO daily_cards (platform, user_id, pack_id, question_id, failures, suspended)
    SELECT CAST(:a_platform AS TEXT), CAST(:a_user_id AS TEXT), CAST(:f_pack AS TEXT), CAST(:f_question AS TEXT),
        CAST(:f_failures AS INTEGER), CAST(:f_suspended AS BOOLEAN) FROM s
    ON CONFLICT (platform, user_id, pack_id, question_id) DO UPDATE SET
        failures = excluded.failures, suspended = excluded.suspended
)"""
        if leech
        else ""
    )
    known = _MADE if made else f"""
known AS (
    SELECT 1 FROM daily_learners
    WHERE platform = :l_platform AND user_id = :l_user AND zone = :l_zone AND {day}
)"""  # noqa: S608 (as above)
    sql = f"""
WITH {known}, {lock}s AS (
    UPDATE sessions SET status = :status, position = :position, data = :data, updated_at = :updated_at,
        version = :version
    WHERE id = :b_id AND version = :b_expected AND EXISTS (SELECT 1 FROM known){held}
    RETURNING id
), a AS (
    INSERT INTO attempts ({", ".join(_ATTEMPT)})
    SELECT {_values("a_", attempts, _ATTEMPT)} FROM s
){card}{settle}{streak}{counted}{failed}
SELECT (SELECT count(*) FROM known) AS known, (SELECT count(*) FROM s) AS saved, {worked} AS worked"""  # noqa: S608 (as above)
    names = {*(f"a_{c}" for c in _ATTEMPT), *(f"r_{c}" for c in _REVIEW)} if with_card else {f"a_{c}" for c in _ATTEMPT}
    names |= {"updated_at", "b_expected", "position", "version", "data"}
    if made:
        names |= {f"m_{c.name}" for c in daily_learners.c}
    else:
        names |= {"l_now", *(f"{side}_{c}" for side in "on" for c in _STREAK)} if moves else {"l_day"}
    names |= {"d_day", "d_reviews", "d_new", "d_channel"} if counts else set()
    names |= {"f_pack", "f_question", "f_failures", "f_suspended"} if leech else set()
    params = [bindparam(n, type_=_TYPES.get(n.split("_", 1)[1] if n[:2] in ("a_", "r_") else n, String())) for n in sorted(names)]
    return Prepared(text(sql).bindparams(*params).columns(known=Integer(), saved=Integer(), worked=Integer()))


_LEARNER = Prepared(
    select(daily_learners.c.zone, *(daily_learners.c[c] for c in _STREAK)).where(
        and_(daily_learners.c.platform == bindparam("platform"), daily_learners.c.user_id == bindparam("user_id"))
    )
)


def plain(op: SaveOp) -> PracticeDay | None:
    """The answer's practice day when the click can be stored in one statement (with its learner's row), else None."""
    unit = op.parts
    if unit is None or op.attempt is None or op.insert:
        return None
    if unit.tally is not None or (unit.settles is not None and op.work is None):
        return None
    day: PracticeDay | None = unit.day
    return day


def guessed(day: PracticeDay, guesses: Guesses) -> tuple[str, date] | None:
    """The learner's (zone, day) this process stored, when this answer falls on that day; else None."""
    known = guesses.get((day.platform, day.user_id))
    if known is None or day.day_in(known[0]) != known[1]:
        return None
    return known


async def write(d: Direct, op: SaveOp, guess: tuple[str, date]) -> tuple[bool, bool, bool]:
    """Run the one statement on its own; return (the learner's day was stored already, the session was
    saved, the answer's work row was there to settle: always true of an answer without one)."""
    params = _params(op, guess[0], guess[1])
    params["l_day"] = guess[1]
    return await _run(d, op, params, moves=False)


async def write_first(d: Direct, op: SaveOp, day: PracticeDay) -> tuple[tuple[bool, bool, bool], tuple[str, date]] | None:
    """Read the learner's streak, then store the answer with it moved in one statement (see the module).

    Returns what `write` returns, with the learner's (zone, day); None for a code answer of a learner
    with no row (the transaction makes it).
    """
    rows = await d.rows(_LEARNER, {"platform": day.platform, "user_id": day.user_id})
    if not rows:  # the learner's very first answer: the statement makes their row
        if op.work is not None:
            return None
        first = Learner(day.platform, day.user_id)
        practised, after = day.apply(first)
        params = _params(op, first.zone, practised)
        params.update({f"m_{k}": v for k, v in learner_values(after, datetime.now(UTC)).items()})
        return await _run(d, op, params, moves=False, made=True), (first.zone, practised)
    row = rows[0]
    before = Streak(**{c.removeprefix("streak_"): row[c] for c in _STREAK})
    practised, after = day.apply(Learner(day.platform, day.user_id, zone=row["zone"], streak=before))
    guess = (row["zone"], practised)
    if after.streak == before:  # the day is stored already (by another process, or before a restart)
        return await write(d, op, guess), guess
    params = _params(op, row["zone"], practised)
    params["l_now"] = datetime.now(UTC)
    params.update({f"o_{c}": row[c] for c in _STREAK})
    params.update({f"n_{c}": getattr(after.streak, c.removeprefix("streak_")) for c in _STREAK})
    return await _run(d, op, params, moves=True), guess


def _params(op: SaveOp, zone: str, practised: date) -> dict[str, Any]:
    row, unit = op.row, op.parts
    day, leech = unit.day, unit.leech
    params: dict[str, Any] = {
        "l_platform": day.platform, "l_user": day.user_id, "l_zone": zone,
        "status": row["status"], "position": row["position"], "data": row["data"], "updated_at": row["updated_at"],
        "version": row["version"], "b_id": row["id"], "b_expected": op.expected_version,
    }  # fmt: skip
    assert op.attempt is not None
    params.update({f"a_{k}": op.attempt[k] for k in _ATTEMPT})
    if op.review is not None:
        params.update({f"r_{k}": op.review[k] for k in _REVIEW})
    if op.work is not None:
        params.update(w_id=op.work, w_item=unit.settles)
    if day.counts:  # a daily review's answer: the day's count, on the learner's practice day
        params.update(d_day=practised, d_reviews=day.reviews, d_new=day.new, d_channel=day.channel)
    if leech is not None:  # a daily review's card: its failures, and whether it left the review
        params.update(f_pack=leech.pack, f_question=leech.question, f_failures=leech.failures, f_suspended=leech.suspended)
    return params


async def _run(d: Direct, op: SaveOp, params: dict[str, Any], *, moves: bool, made: bool = False) -> tuple[bool, bool, bool]:
    unit = op.parts
    statement = _statement(op.review is not None, op.work is not None, moves, unit.day.counts, unit.leech is not None, made)
    (outcome,) = await d.rows(statement, params)
    return bool(outcome["known"]), bool(outcome["saved"]), bool(outcome["worked"])
