"""Quiz sessions in the database, saved with their attempt and review card, each save all or nothing.

A save is one transaction: the conditional update of the session (`... WHERE id = :id AND version =
:expected`), the attempt and the review card. If the update changes no row (another process or a
second delivery of the same click got there first) or the attempt's key is already stored (the
same click, delivered twice), nothing of the save is kept and it raises `Conflict`. An attempt that
settles a row of unfinished work (`Attempt.work`) deletes it in the same transaction; if the row is
gone (taken as abandoned: the learner was told to send it again), the save is refused the same way.

On SQLite, concurrent saves share one transaction (group commit, see `writer.py`), and each save in
the group is still kept or refused alone.
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import date
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, bindparam, delete, insert, select, tuple_, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.core.model import Anchor, Attempt, Owner, Review, Session
from bot.core.ports import Conflict, WorkTaken

from . import one_statement, pg_link
from . import tables as t
from .anchors import WaitingAnchors
from .answers import WORK_TAKEN, Counted, remember, settle_items, write_alone, write_parts, writes_nothing
from .base import Database
from .codec import (
    SESSION_FIELDS,
    Snapshot,
    attempt_row,
    freeze,
    review_row,
    session_from_row,
    session_row,
    thaw,
)
from .group_trip import merged, update_row, write_group
from .prepared import Prepared, run_together
from .work_tables import unfinished_work
from .writer import BatchMismatch, GroupWriter, SaveOp

if TYPE_CHECKING:
    from bot.core.answer import AnswerWrite

ALREADY_ACTIVE = "another quiz is already active for this owner"
Row = dict[str, Any]  # a session's columns, as stored
RECENT = 2_000  # PostgreSQL: sessions this process stored last, kept only as a first guess for `recent`


class SessionStore:
    """Read and save sessions; no cache (see `CachedSessions` for the single-process one)."""

    def __init__(self, db: Database) -> None:
        self._db = self.db = db
        self._writer = GroupWriter(db.engine, db.write_lock, self._apply) if db.sqlite else None
        self._upsert_review = Prepared(_review_upsert(sqlite_insert if db.sqlite else pg_insert))
        # SQLite: this process is the only writer, so it may remember whose practice day is stored.
        self._counted: Counted | None = {} if db.sqlite else None
        # PostgreSQL: whose practice day this process stored, a guess `one_statement` checks in the database.
        self._guesses: Counted | None = None if db.sqlite else {}
        # PostgreSQL: the sessions this process stored last, as snapshots (a copy from one costs a third
        # of rebuilding it from the row's JSON). Never an answer to `get` (another process may have
        # written since); only the first guess of `recent`, whose save checks the version anyway.
        self._recent: OrderedDict[str, Snapshot] = OrderedDict()
        # PostgreSQL: where items were posted, stored with their quiz's next save or a moment later (`anchors.py`)
        self._anchors = None if db.sqlite else WaitingAnchors(db, get=self.get, save=self.save, recent=self._recent)

    async def create(self, session: Session) -> Row:
        """Insert a new session and return its row; Conflict if its owner already has an active one."""
        op = SaveOp(session_row(session, session.version), -1, None, None, insert=True)
        if self._writer is None:
            # PostgreSQL: one INSERT, its own transaction. The unique index of active sessions
            # (`ix_sessions_one_active`) refuses a second active quiz for the owner, as the check
            # `_apply_inserts` makes before a group's inserts; in a SQLAlchemy transaction with that
            # check a new quiz cost 590-840 µs of the bot's CPU, alone 157-259 (bench/pg_statement_bench.py).
            await self._alone(_INSERT_SESSION, op.row)
        else:
            await self._run(op)
        self._remember(session)
        return op.row

    async def get(self, session_id: str) -> Session | None:
        row = await self.get_row(session_id)
        return None if row is None else self._as_known(session_from_row(row))

    async def active(self, owner: Owner) -> Session | None:
        row = await self.active_row(owner)
        return None if row is None else self._as_known(session_from_row(row))

    def _as_known(self, session: Session) -> Session:
        """The session with what this process knows of it and has not written yet: where its item was posted."""
        if self._anchors is not None:
            self._anchors.apply(session)
        return session

    async def active_of(self, platform: str, user_id: str) -> list[Session]:
        """Every active quiz a learner owns, in any server or workspace (and DMs)."""
        s = t.sessions.c
        mine = and_(s.platform == platform, s.owner_kind == "user", s.owner_id == user_id, s.status == "active")
        async with self._db.read() as c:
            rows = (await c.execute(select(t.sessions).where(mine))).all()
        return [self._as_known(session_from_row(dict(row._mapping))) for row in rows]

    async def get_row(self, session_id: str) -> Row | None:
        return await self._one_row(_GET_ROW, {"id": session_id})

    async def active_row(self, owner: Owner) -> Row | None:
        """Return the row of the owner's active session."""
        return await self._one_row(
            _ACTIVE_ROW, {"platform": owner.platform, "scope": owner.scope, "kind": owner.kind, "owner": owner.id}
        )

    async def _one_row(self, query: Prepared, params: dict[str, Any]) -> Row | None:
        rows = await self._db.rows(query, params)
        return rows[0] if rows else None

    async def recent(self, session_id: str, position: int | None = None) -> Session | None:
        """The session as this process last stored it, else as read: a guess for a save that checks its version.

        A caller that changes a little (where an item was posted) saves straight away; if another
        process wrote in between, the save is refused as any stale save is, and the caller reads again.
        """
        recent = self._recent.get(session_id)
        session = None if recent is None else thaw(recent)
        if session is None or (position is not None and session.position != position):
            return await self.get(session_id)  # none, or behind: another process moved the quiz on
        return self._as_known(session)

    def _remember(self, session: Session) -> None:
        if self._writer is not None:
            return  # SQLite: the cache in front of this store keeps sessions already
        if session.status != "active":  # a finished or stopped quiz takes no more clicks: no guess to keep
            self._recent.pop(session.id, None)
            return
        self._recent[session.id] = freeze(session)
        self._recent.move_to_end(session.id)
        while len(self._recent) > RECENT:
            self._recent.popitem(last=False)

    async def save(
        self, session: Session, attempt: Attempt | None = None, review: Review | None = None, *, parts: AnswerWrite | None = None
    ) -> Row:
        """Store the session with its version raised by one, and the attempt and card, or raise Conflict.

        `parts` is the answer's unit of work, whose practice day and leech state are written in the
        same transaction. On success `session.version` is the stored version; returns the row as stored.
        """
        waiting = None if self._anchors is None else await self._anchors.before_save(session)  # taken: rides with this save
        op = SaveOp(
            session_row(session, session.version + 1),
            session.version,
            attempt_row(attempt) if attempt is not None else None,
            review_row(review) if review is not None else None,
            work=attempt.work if attempt is not None else None,
            parts=parts,
        )
        try:
            if self._writer is None and attempt is None and review is None and parts is None:
                await self._save_alone(op)  # one conditional UPDATE: its own transaction, one round trip
            elif not await self._one_statement(op):
                await self._run(op)
        except Exception as exc:
            if isinstance(exc, Conflict):
                self._recent.pop(session.id, None)
            if waiting is not None:  # not stored: it waits again (it is written where its item still is)
                self._anchors.put_back(session.id, waiting)  # type: ignore[union-attr]
            raise
        session.version += 1
        self._remember(session)
        return op.row

    async def save_anchor(self, session: Session) -> None:
        """Store the session, whose only change is its anchor: on PostgreSQL with its next save or soon (`anchors.py`)."""
        if self._anchors is None:
            await self.save(session)
        else:
            self._anchors.add(session)

    async def save_anchor_at(self, session_id: str, position: int | None, anchor: Anchor) -> bool:
        return False  # the caller reads a guess (`recent`), then `save_anchor`: no copy is kept in memory to change

    async def write_anchors(self) -> None:
        if self._anchors is not None:
            await self._anchors.write()

    async def write(self, unit: AnswerWrite) -> Row | None:
        """Write a graded answer's unit of work in one transaction (see `answers.py`); the session's row, if any."""
        if unit.session is not None:
            return await self.save(unit.session, unit.attempt, unit.card, parts=unit)
        await write_alone(self._db, unit, self._upsert_review, self._counted)
        return None

    async def close(self) -> None:
        if self._anchors is not None:
            await self._anchors.close()
        if self._writer is not None:
            await self._writer.close()

    async def _run(self, op: SaveOp) -> None:
        try:
            if self._writer is not None:
                await self._writer.save(op)
                return
            async with self._db.write() as c:
                outcome = (await self._apply(c, [op]))[0]
                if outcome is not None:
                    raise outcome  # leaving the block with an error rolls the whole save back
        except IntegrityError as exc:  # another process stored this attempt's key (or an active quiz) first
            raise Conflict(ALREADY_ACTIVE if op.insert else "this action was already recorded") from exc
        except BatchMismatch as exc:
            raise (WorkTaken if str(exc) == WORK_TAKEN else Conflict)(str(exc)) from exc

    async def _work_gone(self, op: SaveOp) -> Conflict:
        """"Already recorded" when the attempt's key is stored (as a transaction says it first), else WorkTaken."""
        async with self._db.read() as c:
            stored = (await c.execute(select(t.attempts.c.key).where(t.attempts.c.key == (op.attempt or {}).get("key")))).first()
        return Conflict("this action was already recorded") if stored is not None else WorkTaken(WORK_TAKEN)

    async def _one_statement(self, op: SaveOp) -> bool:
        """PostgreSQL: store a plain click in one statement (`one_statement.py`); False: store it in a transaction."""
        guesses = self._guesses
        day = one_statement.plain(op) if guesses is not None else None
        if guesses is None or day is None:
            return False
        guess = one_statement.guessed(day, guesses)
        read: tuple[str, date] | None = None  # the learner's (zone, day) as read, to remember once stored
        try:
            async with pg_link.direct(self._db.engine) as d:  # each statement is its own transaction
                if guess is not None:
                    known, saved, worked = await one_statement.write(d, op, guess)
                else:  # the learner's first answer this process stores today: their streak read, then moved
                    first = await one_statement.write_first(d, op, day)
                    if first is None:
                        return False  # a code answer of a learner with no row yet: the transaction makes it
                    (known, saved, worked), read = first
        except IntegrityError as exc:  # the attempt's key is stored: the same click, delivered twice
            raise Conflict("this action was already recorded") from exc
        if not known:
            return False  # nothing was written: the learner's row changed since it was read; the transaction decides
        if not worked:  # gone: taken (the learner was told), or settled by another process's store of this delivery
            raise await self._work_gone(op)
        if not saved:
            raise Conflict(f"session {op.row['id']} changed since it was read")
        if read is not None:
            remember(guesses, (day.platform, day.user_id), read)
        return True

    async def _save_alone(self, op: SaveOp) -> None:
        """PostgreSQL: a session saved with nothing else is one statement, run without BEGIN and COMMIT."""
        if await self._alone(_UPDATE_IF_VERSION, update_row(op)) != 1:
            self._recent.pop(op.row["id"], None)
            raise Conflict(f"session {op.row['id']} changed since it was read")

    async def _alone(self, statement: Prepared, params: Row) -> int:
        """PostgreSQL: run one statement on a session as its own transaction; the rows it changed.

        A quiz made active while its owner has another (this process's or another's) breaks the
        unique index: the same refusal as `_run`'s.
        """
        try:
            async with pg_link.direct(self._db.engine) as d:
                return await d.changed(statement, params)
        except IntegrityError as exc:
            raise Conflict(ALREADY_ACTIVE) from exc

    # ------------------------------------------------------------- applying saves in a transaction

    async def _apply(self, c: AsyncConnection, ops: list[SaveOp]) -> list[BaseException | None]:
        """Apply saves and new sessions in the open transaction: one statement per table and kind.

        Returns each op's outcome (None, or the Conflict that refuses it). Raises BatchMismatch when
        the database changed rows other than the checks predicted (another process wrote between
        them); the caller rolls the transaction back and tries each save alone.
        """
        outcome: dict[int, BaseException | None] = {}
        updates = [op for op in ops if not op.insert]
        inserts = [op for op in ops if op.insert]
        if updates:  # first: a quiz stopped in this group frees its owner for a new one
            outcome.update(zip(map(id, updates), await self._apply_updates(c, updates, last=not inserts), strict=True))
        if inserts:
            outcome.update(zip(map(id, inserts), await self._apply_inserts(c, inserts), strict=True))
        return [outcome[id(op)] for op in ops]

    async def _apply_inserts(self, c: AsyncConnection, ops: list[SaveOp]) -> list[BaseException | None]:
        s = t.sessions.c
        owners = [tuple(op.row[k] for k in ("platform", "scope", "owner_kind", "owner_id")) for op in ops]
        taken = {
            tuple(r)
            for r in await c.execute(
                select(s.platform, s.scope, s.owner_kind, s.owner_id).where(
                    and_(s.status == "active", tuple_(s.platform, s.scope, s.owner_kind, s.owner_id).in_(owners))
                )
            )
        }
        outcomes: list[BaseException | None] = []
        rows = []
        for op, owner in zip(ops, owners, strict=True):
            if op.row["status"] == "active":
                if owner in taken:
                    outcomes.append(Conflict(ALREADY_ACTIVE))
                    continue
                taken.add(owner)
            rows.append(op.row)
            outcomes.append(None)
        if rows:
            await c.execute(_INSERT_SESSIONS, rows)
        return outcomes

    async def _apply_updates(self, c: AsyncConnection, ops: list[SaveOp], last: bool = False) -> list[BaseException | None]:
        """`last`: nothing else is written in the transaction after these saves (SQLite's group may commit with them)."""
        if len(ops) > 1:
            # Refuse what would fail, before writing: a stale version, a key stored or repeated in
            # the group. The conditional update below still checks every row. On SQLite the check,
            # the writes and the commit are one trip (`group_trip.py`).
            parts = [op.parts for op in ops if op.parts is not None]
            commit = last and all(writes_nothing(unit, self._counted) for unit in parts)
            trip = await write_group(c, ops, _UPDATE_IF_VERSION, _INSERT_ATTEMPTS, self._upsert_review, commit=commit)
            if trip.written:
                if not commit:
                    for unit in parts:
                        await write_parts(c, unit, self._counted, self._guesses)
                return trip.outcomes
            outcomes = trip.outcomes  # checked only, or a save refused: the kept ones are written below
        else:
            outcomes = [None]
        good = [op for op, outcome in zip(ops, outcomes, strict=True) if outcome is None]
        if not good:
            return outcomes
        updates = [update_row(op) for op in good]
        if len(ops) == 1:  # not checked above: the conditional update decides before anything else is written
            if await _UPDATE_IF_VERSION.run(c, updates) != 1:
                return [Conflict(f"session {ops[0].row['id']} changed since it was read")]
            updates = []  # run: not again below
        work = [op.work for op in good if op.work is not None]
        if work:  # the answers settle their unfinished work; one already taken refuses its answer
            settled = await c.execute(delete(unfinished_work).where(unfinished_work.c.id.in_(work)))
            if settled.rowcount != len(work):
                raise BatchMismatch(WORK_TAKEN if len(work) == 1 else f"{settled.rowcount} of {len(work)} work rows settled")
        await settle_items(c, [op.parts for op in good if op.parts is not None and op.parts.settles is not None])
        attempts = [op.attempt for op in good if op.attempt is not None]
        reviews = merged([op.review for op in good if op.review is not None])
        # The group's updates, attempts and cards: one trip on SQLite (`prepared.run_together`)
        updated, _, _ = await run_together(c, [(_UPDATE_IF_VERSION, updates), (_INSERT_ATTEMPTS, attempts), (self._upsert_review, reviews)])
        if updated != len(updates):
            raise BatchMismatch(f"{updated} of {len(good)} sessions updated")
        for op in good:
            if op.parts is not None:
                await write_parts(c, op.parts, self._counted, self._guesses)
        return outcomes


# Statements built once: building them on every group costs more than running them on SQLite.
_UPDATE_IF_VERSION = Prepared(
    update(t.sessions)
    .where(and_(t.sessions.c.id == bindparam("b_id"), t.sessions.c.version == bindparam("b_expected")))
    .values({name: bindparam(name) for name in SESSION_FIELDS})
)

_GET_ROW = Prepared(select(t.sessions).where(t.sessions.c.id == bindparam("id")))
_ACTIVE_ROW = Prepared(select(t.sessions).where(
    and_(
        t.sessions.c.platform == bindparam("platform"),
        t.sessions.c.scope == bindparam("scope"),
        t.sessions.c.owner_kind == bindparam("kind"),
        t.sessions.c.owner_id == bindparam("owner"),
        t.sessions.c.status == "active",
    )
))
_INSERT_ATTEMPTS = Prepared(insert(t.attempts))
_INSERT_SESSIONS = insert(t.sessions)
_INSERT_SESSION = Prepared(_INSERT_SESSIONS)


def _review_upsert(dialect_insert: Any) -> Any:
    """Insert a review card, or update the stored one and add the answers."""
    statement = dialect_insert(t.reviews)
    return statement.on_conflict_do_update(
        index_elements=["platform", "user_id", "pack_id", "question_id"],
        set_={
            "card": statement.excluded.card,
            "due": statement.excluded.due,
            "correct": statement.excluded.correct,
            "answers": t.reviews.c.answers + statement.excluded.answers,
        },
    )
