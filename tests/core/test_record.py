"""`record`: values compared and hashed by their fields, and refused a field assignment by mypy."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

from mypy import api

from bot.core.replies import Button, Message, Text


def test_records_are_equal_and_hash_alike_by_their_fields() -> None:
    a, b = Button("q:1", "A", text="right"), Button("q:1", "A", text="right")
    assert a == b and hash(a) == hash(b)
    assert a != Button("q:1", "B", text="right")
    assert len({a, b, Button("q:2", "A")}) == 2
    moved = replace(a, label="B")
    assert moved.label == "B" and a.label == "A"  # `replace` makes a new value; the old one is unchanged
    message = Message(kind="item", parts=(Text("hi"),), rows=((a,),))
    assert message == Message(kind="item", parts=(Text("hi"),), rows=((b,),))


def test_mypy_refuses_assigning_a_field_of_a_record(tmp_path: Path) -> None:
    code = tmp_path / "assigns.py"
    code.write_text(
        textwrap.dedent(
            """
            from bot.core.record import record

            @record
            class Button:
                action: str
                label: str

            button = Button("q:1", "A")
            button.label = "B"
            """
        )
    )
    # `make test` has just run `mypy --strict` on bot/: with its options and cache, only this file is checked anew.
    cache = Path(__file__).resolve().parents[2] / ".mypy_cache"
    out, _err, status = api.run([str(code), "--strict", "--cache-dir", str(cache), "--no-error-summary"])
    assert status == 1
    assert 'Property "label" defined in "Button" is read-only' in out
