"""A Moodle XML export (every type the issue names) converted field by field."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.convert import Conversion
from bot.core.packs import CodeQuestion
from bot.core.ports import RunRequest
from tests.fakes import LocalRunner

from .helpers import assumed, convert_fixture, item, skipped

FIXTURE = "moodle-pytorch-basics-20261130-1412.xml"


@pytest.fixture(scope="module")
def moodle() -> Conversion:
    return convert_fixture(FIXTURE)


def test_pack_header_ids_and_topics(moodle: Conversion) -> None:
    assert moodle.format == "moodle-xml"
    assert moodle.pack["pack"] == "moodle-pytorch-basics"  # Moodle's time stamp dropped
    assert moodle.pack["version"] == 1
    assert moodle.pack["topics"] == [{"id": "tensors", "title": "Tensors"}, {"id": "autograd", "title": "Autograd"}]
    assert [(c.id, c.type, c.line, c.source_type) for c in moodle.converted] == [
        ("zeros-of-a-shape", "choice", 15, "multichoice"),
        ("float-tensors", "choice", 67, "multichoice"),
        ("views-share-memory", "choice", 116, "truefalse"),
        ("method-for-the-shape", "short", 145, "shortanswer"),
        ("mean-of-a-range", "short", 211, "numerical"),
        ("backward-words", "blanks", 280, "ddwtos"),
        ("zero-the-gradients", "blanks", 324, "gapselect"),
        ("squares-of-a-tensor", "code", 396, "coderunner"),
    ]
    assert moodle.counts() == {"choice": 3, "blanks": 2, "short": 2, "code": 1}


def test_single_choice_with_feedback_hint_and_general_feedback(moodle: Conversion) -> None:
    q = item(moodle, "zeros-of-a-shape")
    assert q["topic"] == "tensors"
    assert q["prompt"] == "Which call makes a **2×3** tensor filled with zeros?"
    assert q["hint"] == "The sizes are the arguments."
    assert q["explanation"] == "`torch.zeros(2, 3)` takes the sizes as separate arguments (or one tuple)."
    assert q["choices"] == [
        {"text": "`torch.zeros(2, 3)`", "correct": True, "feedback": "Yes: two rows, three columns."},
        {"text": "`torch.zeros(6)`", "feedback": "That is a flat tensor of six zeros."},
        {"text": "`torch.empty(2, 3)`", "feedback": "`empty` leaves the memory uninitialised."},
    ]
    assert "multiple" not in q and "shuffle" not in q


def test_multiple_choice_fractions_points_and_idnumber(moodle: Conversion) -> None:
    q = item(moodle, "float-tensors")
    assert q["multiple"] is True and q["points"] == 2
    assert [(c["text"], c.get("correct", False)) for c in q["choices"]] == [
        ("`torch.tensor([1.0, 2.0])`", True),
        ("`torch.zeros(3)`", True),
        ("`torch.tensor([1, 2])`", False),
    ]
    assert q["choices"][2]["feedback"] == "Python ints give `int64`."
    assert assumed(moodle)["multiple-answer questions are all-or-nothing: the learner selects every right choice"] == (67,)


def test_true_false_keeps_each_feedback_and_order(moodle: Conversion) -> None:
    q = item(moodle, "views-share-memory")
    assert q["shuffle"] is False
    assert q["choices"] == [
        {"text": "True", "correct": True, "feedback": "Right: change one and the other changes."},
        {"text": "False", "feedback": "It does share: that is what makes it a view."},
    ]
    assert q["explanation"] == "A view is another look at the same storage."


def test_short_answer_wildcards_and_catch_all(moodle: Conversion) -> None:
    q = item(moodle, "method-for-the-shape")
    assert q["accept"] == ["shape", "x.shape"]  # `*.shape` cannot be compared whole: left out, reported
    assert q["hint"] == "It is an attribute, not a method; five letters."
    assert q["explanation"] == "`x.shape` and `x.size()` give the same `torch.Size`."
    notes = assumed(moodle)
    assert notes["right answers with a `*` wildcard were left out; the plain ones remain"] == (145,)
    assert 145 in notes["the feedback for any other answer (`*`) became the hint"]
    assert skipped(moodle)[187] == (
        "its right answer `torch.float*` uses the `*` wildcard; QuizBot compares whole answers"
    )


def test_numerical_tolerance(moodle: Conversion) -> None:
    q = item(moodle, "mean-of-a-range")
    assert q["number"] == {"value": 2, "tolerance": 0.001}
    assert "accept" not in q
    assert q["hint"] == "arange(5.) is 0, 1, 2, 3, 4."


def test_drag_and_drop_and_gap_select_become_blanks(moodle: Conversion) -> None:
    words = item(moodle, "backward-words")
    assert words["code"] == (
        "Calling {{1}} on a scalar fills the {{2}} attribute of every leaf that has {{3}} set.\n"
    )
    assert words["options"] == ["backward()", ".grad", "requires_grad", ".data"]
    assert words["answers"] == {1: "backward()", 2: ".grad", 3: "requires_grad"}
    assert words["prompt"] == "Choose the right option for each blank."
    step = item(moodle, "zero-the-gradients")
    assert step["prompt"] == "Complete the training step so gradients do not accumulate."
    assert step["code"] == "optimizer.{{1}}()\nloss = loss_fn(model(x), y)\nloss.{{2}}()\noptimizer.{{3}}()\n"
    assert step["answers"] == {1: "zero_grad", 2: "backward", 3: "step"}
    assert step["explanation"] == "Zero, compute, step."


def test_description_matching_and_other_coderunner_types_are_listed(moodle: Conversion) -> None:
    reasons = skipped(moodle)
    assert reasons[263].startswith("a description holds no question")
    assert reasons[372] == "Moodle's `match` question type has no QuizBot counterpart"
    assert reasons[497] == "CodeRunner type `c_program`: only python3 questions become code items"
    labels = {s.line: s.label for s in moodle.not_converted}
    assert labels == {187: "Any dtype name", 263: "About this part", 372: "Match the calls", 497: "Hello in C"}


def test_coderunner_becomes_a_code_item(moodle: Conversion) -> None:
    q = item(moodle, "squares-of-a-tensor")
    assert q["test_file"] == "tests/squares-of-a-tensor.py"
    assert q["solution"] == "def squares(n):\n    return [i * i for i in range(n)]\n"
    assert q["starter"] == "def squares(n):\n    pass\n"
    assert q["limits"] == {"time_s": 5.0}
    assert "```python\nprint(squares(4))\n```\nprints\n```\n[0, 1, 4, 9]\n```" in q["prompt"]
    assert "10 81" not in q["prompt"]  # the hidden case stays hidden
    assert set(moodle.files) == {"tests/squares-of-a-tensor.py"}
    loaded = moodle.loaded
    assert loaded is not None
    code = loaded.pack.question("squares-of-a-tensor")
    assert isinstance(code, CodeQuestion) and code.test == moodle.files["tests/squares-of-a-tensor.py"]


async def test_the_generated_unittest_passes_the_answer_and_fails_others(moodle: Conversion) -> None:
    test = moodle.files["tests/squares-of-a-tensor.py"]
    runner = LocalRunner()
    right = await runner.run(RunRequest(item(moodle, "squares-of-a-tensor")["solution"], test=test))
    assert right.status == "passed"
    assert [name for name, _, _ in right.tests] == [
        "Test 1: `print(squares(4))` prints the expected output.",
        "Hidden test 2 prints the expected output.",
    ]
    off_by_one = await runner.run(RunRequest("def squares(n):\n    return [i * i for i in range(1, n + 1)]\n", test=test))
    assert off_by_one.status == "failed"
    first, hidden = off_by_one.tests
    assert first[1] is False and first[2] == "test case 1: expected '[0, 1, 4, 9]', got '[1, 4, 9, 16]'"
    assert hidden[1] is False and "10 100" not in hidden[2] and "10 81" not in hidden[2]
    starter = await runner.run(RunRequest(item(moodle, "squares-of-a-tensor")["starter"], test=test))
    assert starter.status == "failed"
    assert [name for name, _, _ in starter.tests] == [
        "Test 1: `print(squares(4))` prints the wrong output.",
        "Hidden test 2 stops with TypeError.",
    ]


def test_the_pack_folder_round_trips_through_the_loader(moodle: Conversion, tmp_path: Path) -> None:
    from bot.core.packs import load_path

    for name, data in moodle.folder_files().items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    loaded = load_path(tmp_path)
    assert [q.id for q in loaded.pack.questions] == [c.id for c in moodle.converted]
    assert loaded.lines["zeros-of-a-shape"][0] > 1


def test_escaped_star_is_literal_and_case_sensitivity_is_reported() -> None:
    from bot.core.convert import convert_bytes

    xml = b"""<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="shortanswer">
    <name><text>Unpacking operator</text></name>
    <questiontext format="plain_text"><text>Which operator unpacks a list into arguments?</text></questiontext>
    <usecase>1</usecase>
    <answer fraction="100" format="moodle_auto_format"><text>\\*</text></answer>
  </question>
</quiz>
"""
    conversion = convert_bytes("star.xml", xml)
    [q] = conversion.pack["questions"]
    assert q["accept"] == ["*"] and q["prompt"] == "Which operator unpacks a list into arguments?"
    assert assumed(conversion) == {"case-sensitive answers are compared ignoring case": (3,)}


def test_preview_for_the_chat(moodle: Conversion) -> None:
    preview = moodle.preview(problems=2)
    lines = preview.splitlines()
    assert lines[0] == "**Converted 8 items from Moodle XML (3 choice, 2 blanks, 2 short, 1 code); 4 not converted.**"
    assert lines[1] == "Pack `moodle-pytorch-basics` · Moodle pytorch basics · version 1"
    assert lines[2] == "Topics: Tensors, Autograd"
    assert lines[3:7] == [
        "Not converted:",
        "- line 187: `Any dtype name` (shortanswer): its right answer `torch.float*` uses the `*` wildcard; QuizBot compares whole answers",
        "- line 263: `About this part` (description): a description holds no question (Moodle shows it as text between questions)",
        "- ... and 2 more",
    ]
    assert lines[7] == "Assumed:" and lines[-1] == "- ... and 2 more"
