"""The published JSON Schema and the shipped packs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.core.packs import load_path
from bot.core.packs.schema import pack_json_schema, render

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "content" / "schema" / "pack.schema.json"
SHIPPED = sorted(p.parent for p in (ROOT / "content" / "packs").glob("*/pack.yaml"))


def test_checked_in_schema_is_current() -> None:
    assert SCHEMA.read_text(encoding="utf-8") == render(), "run `make schema` and commit the result"


def test_schema_forbids_unknown_keys_and_knows_every_type() -> None:
    schema = pack_json_schema()
    assert schema["additionalProperties"] is False
    kinds = {d["properties"]["type"]["const"] for name, d in schema["$defs"].items() if name.endswith("Question")}
    assert kinds == {"choice", "blanks", "short", "code"}
    json.dumps(schema)


def test_there_are_shipped_packs() -> None:
    assert len(SHIPPED) >= 1


@pytest.mark.parametrize("folder", SHIPPED, ids=[p.name for p in SHIPPED])
def test_shipped_pack_is_valid(folder: Path) -> None:
    pack = load_path(folder).pack
    assert pack.pack == folder.name
    for question in pack.questions:
        assert question.hint, f"{question.id} has no hint"
        assert question.explanation, f"{question.id} has no explanation"
