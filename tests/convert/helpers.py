"""Shared helpers for the converter tests: fixtures by name, converting them, finding items."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.core.convert import Conversion, convert_bytes
from bot.core.packs import load_bytes

IMPORT_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "import"


def convert_fixture(name: str, **options: Any) -> Conversion:
    """Convert one fixture file, and check the result loads with the project's own loader."""
    path = IMPORT_FIXTURES / name
    conversion = convert_bytes(path.name, path.read_bytes(), **options)
    assert conversion.ok, conversion.report_lines()
    assert conversion.loaded is not None
    reloaded = load_bytes(f"{conversion.pack['pack']}.zip", conversion.zip_bytes())
    assert [q.id for q in reloaded.pack.questions] == [c.id for c in conversion.converted]
    return conversion


def item(conversion: Conversion, qid: str) -> dict[str, Any]:
    found = [q for q in conversion.pack["questions"] if q["id"] == qid]
    assert found, f"no item {qid}; ids: {[q['id'] for q in conversion.pack['questions']]}"
    return found[0]


def skipped(conversion: Conversion) -> dict[int, str]:
    """Map each line of an item that was not converted to its reason."""
    return {s.line: s.reason for s in conversion.not_converted}


def assumed(conversion: Conversion) -> dict[str, tuple[int, ...]]:
    return {a.message: a.lines for a in conversion.assumptions}


def one_short_pack(pack: str) -> str:
    """A valid pack of one short-answer question (id `one`), with the id `pack`."""
    return f"""\
pack: {pack}
title: {pack.title()}
version: 1
questions:
  - id: one
    type: short
    prompt: Say six
    accept: ["6"]
"""
