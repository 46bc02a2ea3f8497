"""Round trips: a pack written as GIFT, Moodle XML or CSV converts back to the same items."""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.convert import convert_bytes, export_pack
from bot.core.packs import AnyQuestion, BlanksQuestion, ChoiceQuestion, Pack, ShortQuestion, load_path
from tests.conftest import DEMO_PACK

from .helpers import convert_fixture

SUFFIX = {"gift": "gift.txt", "moodle-xml": "quiz.xml", "csv": "sheet.csv"}


def answer_key(pack: Pack, q: AnyQuestion, *, feedback: bool = True) -> dict[str, Any]:
    """What a learner meets and is graded on, per item type."""
    key: dict[str, Any] = {"type": q.type, "prompt": q.prompt, "topic": pack.topic_title(q.topic), "explanation": q.explanation}
    if isinstance(q, ChoiceQuestion):
        key["multiple"] = q.multiple
        key["choices"] = [(c.text, c.correct, c.feedback if feedback else None) for c in q.choices]
    elif isinstance(q, ShortQuestion):
        number = (q.number.value, q.number.tolerance) if q.number else None
        # a text answer equal to the number is the same answer
        key["accept"] = sorted(a for a in q.accept if not (number and _is(a, number[0])))
        key["number"] = number
    elif isinstance(q, BlanksQuestion):
        key["code"], key["options"] = q.code, q.options
        key["filled"] = q.filled()
    return key


def _is(text: str, value: float) -> bool:
    try:
        return float(text) == value
    except ValueError:
        return False


def round_trip(pack: Pack, fmt: str) -> tuple[Pack, Any]:
    exported = export_pack(pack, fmt)
    back = convert_bytes(SUFFIX[fmt], exported.text.encode(), pack_id=pack.pack, title=pack.title)
    assert back.format == fmt and back.loaded is not None, back.report_lines()
    return back.loaded.pack, exported


@pytest.fixture(scope="module")
def demo() -> Pack:
    return load_path(DEMO_PACK).pack


def test_gift_round_trip(demo: Pack) -> None:
    back, exported = round_trip(demo, "gift")
    kept = ["q-choice", "q-short", "q-multi"]
    assert [q.id for q in back.questions] == kept
    for qid in kept:
        original, again = demo.question(qid), back.question(qid)
        assert original is not None and again is not None
        assert answer_key(back, again) == answer_key(demo, original), qid
    assert exported.left_out == [
        ("q-blanks", "blanks items have no GIFT form"),
        ("q-code", "code items have no GIFT form"),
    ]
    assert "hints (GIFT has none)" in exported.lost


def test_moodle_xml_round_trip_keeps_hints_difficulty_and_blanks(demo: Pack) -> None:
    back, exported = round_trip(demo, "moodle-xml")
    kept = ["q-choice", "q-blanks", "q-short", "q-multi"]
    assert [q.id for q in back.questions] == kept
    for qid in kept:
        original, again = demo.question(qid), back.question(qid)
        assert original is not None and again is not None
        assert answer_key(back, again) == answer_key(demo, original), qid
        assert (again.hint, again.difficulty) == (original.hint, original.difficulty), qid
    assert exported.left_out == [("q-code", "code items are graded by a unittest file, which Moodle XML cannot hold")]


def test_csv_round_trip(demo: Pack) -> None:
    back, exported = round_trip(demo, "csv")
    kept = ["q-choice", "q-blanks", "q-short", "q-multi"]
    assert [q.id for q in back.questions] == kept
    for qid in kept:
        original, again = demo.question(qid), back.question(qid)
        assert original is not None and again is not None
        assert answer_key(back, again, feedback=False) == answer_key(demo, original, feedback=False), qid
        assert (again.hint, again.difficulty) == (original.hint, original.difficulty), qid
    assert "per-choice feedback (CSV has no column for it)" in exported.lost


@pytest.mark.parametrize("fmt", ["gift", "moodle-xml", "csv"])
def test_converted_packs_survive_a_second_round_trip(fmt: str) -> None:
    for fixture in ("pytorch-gift.txt", "moodle-pytorch-basics-20261130-1412.xml"):
        first = convert_fixture(fixture)
        assert first.loaded is not None
        pack = first.loaded.pack
        back, exported = round_trip(pack, fmt)
        written = [q.id for q in back.questions]
        assert len(written) == exported.written
        for qid in written:
            original, again = pack.question(qid), back.question(qid)
            assert original is not None and again is not None
            assert answer_key(back, again, feedback=fmt != "csv") == answer_key(pack, original, feedback=fmt != "csv")


def test_unknown_export_format(demo: Pack) -> None:
    with pytest.raises(ValueError, match="known: gift, moodle-xml, csv"):
        export_pack(demo, "docx")
