"""A read of many rows that SQLite hands back as one: the rows as a JSON array, read back to the same values.

The sqlite3 module lets go of the GIL for every row it steps and takes it back after. While the
event loop is busy, each taking back waits until the loop lets go of it (at its next wait, or after
Python's switch interval): under load a read of many rows cost the database thread a context switch
a row and took as many of the loop's turns. Aggregated by SQLite into one JSON row it is one step.
In bench/core_bench.py flat out, a quiz start's read of a learner's 60 cards cost about 620 µs of the
database thread's CPU row by row; read as one row, the answers per second rose by about a tenth.

It is read for SQLite only (on PostgreSQL asyncpg takes every row in one reply), in one trip to the
database's thread (`sqlite_read.py`, compiled once: an expanding `IN` cannot be; a list goes in as a
JSON array read with `json_each`). Each value comes back as SQLAlchemy gives it from a row: its column type's result processing applied
to what JSON carried. Text, integers and NULL come back exact (every column these reads return);
SQLite writes a REAL to 15 significant digits and cannot put a BLOB in JSON, so a read of such
columns must not use it. The rows' order is not kept: use it for reads that are not ordered.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson
from sqlalchemy import Select, func, select
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncEngine

from .prepared import Prepared
from .sqlite_read import read_alone

Readers = tuple[Callable[[Any], Any] | None, ...]


class ManyRows:
    """One SELECT of many rows, with its one-row form for SQLite built once."""

    def __init__(self, statement: Select[Any]) -> None:
        self.statement = statement
        inner = statement.subquery()
        self.one_row: Select[Any] = select(func.json_group_array(func.json_array(*inner.c)).label("rows"))
        self._one = Prepared(self.one_row)
        self._readers: dict[str, Readers] = {}

    def readers(self, dialect: Dialect) -> Readers:
        """Each column's result processor on this dialect (None where a value is kept as it comes)."""
        if dialect.name not in self._readers:
            self._readers[dialect.name] = tuple(
                column.type.dialect_impl(dialect).result_processor(dialect, None)
                for column in self.statement.selected_columns
            )
        return self._readers[dialect.name]

    async def read(self, engine: AsyncEngine, params: Mapping[str, Any]) -> list[Sequence[Any]]:
        """Every row (SQLite), each a sequence of the columns' values as SQLAlchemy would give them."""
        (found,) = await read_alone(engine, self._one, params)
        readers = self.readers(engine.dialect)
        return [[v if read is None else read(v) for read, v in zip(readers, row, strict=True)] for row in orjson.loads(found["rows"])]
