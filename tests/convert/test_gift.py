"""A GIFT file using every construct, converted field by field."""

from __future__ import annotations

import pytest

from bot.core.convert import Conversion, convert_bytes

from .helpers import assumed, convert_fixture, item, skipped


@pytest.fixture(scope="module")
def gift() -> Conversion:
    return convert_fixture("pytorch-gift.txt")


def test_titles_ids_categories_and_lines(gift: Conversion) -> None:
    assert gift.format == "gift"
    assert [(c.id, c.type, c.line) for c in gift.converted] == [
        ("zeros-shape", "choice", 6),
        ("missing-word", "choice", 13),
        ("views", "choice", 15),
        ("ints-default", "choice", 18),
        ("pi-to-two-places", "short", 20),
        ("between-one-and-five", "short", 22),
        ("sum-of-squares", "short", 24),
        ("shape-attribute", "short", 31),
        ("escapes-in-titles", "choice", 33),
        ("select-floats", "choice", 39),
        ("markdown-prompt", "short", 47),
        ("html-prompt", "choice", 49),
        ("comment-hash", "short", 54),
    ]
    topics = {q["id"]: q["topic"] for q in gift.pack["questions"]}
    assert topics["select-floats"] == "tensors" and topics["markdown-prompt"] == "autograd"
    assert gift.pack["topics"] == [{"id": "tensors", "title": "Tensors"}, {"id": "autograd", "title": "Autograd"}]


def test_multiple_choice_feedback_and_general_feedback(gift: Conversion) -> None:
    q = item(gift, "zeros-shape")
    assert q["choices"] == [
        {"text": "torch.zeros(2, 3)", "correct": True, "feedback": "Yes: the sizes are separate arguments."},
        {"text": "torch.zeros(6)", "feedback": "That is a flat tensor of six zeros."},
        {"text": "torch.empty(2, 3)", "feedback": "empty() leaves memory uninitialised."},
    ]
    assert q["explanation"] == "torch.zeros(2, 3) fills a new 2x3 tensor with 0."


def test_missing_word_puts_a_blank_line_in_the_prompt(gift: Conversion) -> None:
    q = item(gift, "missing-word")
    assert q["prompt"] == "A tensor's _____ says what kind of numbers it holds."
    assert [c["text"] for c in q["choices"] if c.get("correct")] == ["dtype"]


def test_true_false_with_wrong_and_right_feedback(gift: Conversion) -> None:
    views = item(gift, "views")
    assert views["choices"] == [
        {"text": "True", "correct": True, "feedback": "Right: views share storage."},
        {"text": "False", "feedback": "A view is a new look at the same storage, so it does share."},
    ]
    ints = item(gift, "ints-default")
    assert ints["choices"] == [{"text": "True"}, {"text": "False", "correct": True}]
    assert ints["explanation"] == "Python ints give int64."


def test_numbers_tolerances_ranges_and_weights(gift: Conversion) -> None:
    assert item(gift, "pi-to-two-places")["number"] == {"value": 3.14, "tolerance": 0.01}
    assert item(gift, "between-one-and-five")["number"] == {"value": 3, "tolerance": 2}
    squares = item(gift, "sum-of-squares")
    assert squares["number"] == {"value": 5, "tolerance": 0}
    assert squares["hint"] == "Square each number, then add."
    assert squares["explanation"] == "1 + 4 = 5."
    assert "accept" not in squares  # the 50% answer 4 is not accepted
    assert assumed(gift)["answers worth partial credit are not accepted"] == (24,)


def test_short_answers_and_escapes(gift: Conversion) -> None:
    shape = item(gift, "shape-attribute")
    assert shape["accept"] == ["shape", "x.shape"] and shape["explanation"] == "Both name the attribute."
    escaped = item(gift, "escapes-in-titles")
    assert escaped["prompt"] == "Which operator is written = in Python, and what do braces { } make?"
    assert escaped["choices"][0] == {
        "text": "an assignment and a dict or set",
        "correct": True,
        "feedback": "Right: = assigns, {} builds a dict or set.",
    }
    assert escaped["choices"][2]["text"] == "a ~ bitwise not and a tuple"
    assert item(gift, "comment-hash")["accept"] == ["#"]


def test_select_all_weights(gift: Conversion) -> None:
    q = item(gift, "select-floats")
    assert q["multiple"] is True
    assert [c.get("correct", False) for c in q["choices"]] == [True, True, False]
    assert q["choices"][2]["feedback"] == "Python ints give int64."


def test_text_formats(gift: Conversion) -> None:
    md = item(gift, "markdown-prompt")
    assert md["prompt"] == (
        "What does this print?\n```python\nimport torch\nx = torch.ones(2, requires_grad=True)\n"
        "print(x.sum().requires_grad)\n```"
    )
    assert md["accept"] == ["True"]
    html = item(gift, "html-prompt")
    assert html["prompt"] == "Which method computes **gradients**?"
    assert html["choices"] == [
        {"text": "`backward()`", "correct": True},
        {"text": "`grad()`", "feedback": "There is no `grad()` method on tensors."},
    ]


def test_description_essay_and_matching_are_listed(gift: Conversion) -> None:
    assert skipped(gift) == {
        56: "a description holds no question",
        58: "an essay question has no answer to check",
        60: "matching questions have no QuizBot counterpart",
    }
    assert [s.source_type for s in gift.not_converted] == ["description", "essay", "matching"]


def test_gift_as_moodle_exports_it() -> None:
    exported = (
        "// question: 12  name: Grad flag\n"
        "$CATEGORY: $course$/top/Default for PyTorch/Autograd\n\n"
        "// question: 13  name: Grad flag\n"
        "::Grad flag::[html]<p>Which flag turns on tracking?</p>{\n"
        "\t=<p>requires_grad\\=True</p>#<p>Yes.</p>\n"
        "\t~<p>track\\=True</p>#<p>No such flag.</p>\n"
        "\t####<p>Set it when you create the tensor.</p>\n"
        "}\n\n"
        "// question: 14  name: Two\n"
        "::Two::[html]<p>1 + 1?</p>{\n\t=%100%2#\n\t=%50%two#\n}\n"
    )
    conversion = convert_bytes("export.txt", exported.encode())
    flag = conversion.pack["questions"][0]
    assert flag["id"] == "grad-flag" and flag["topic"] == "autograd"
    assert flag["choices"][0] == {"text": "requires_grad=True", "correct": True, "feedback": "Yes."}
    assert flag["explanation"] == "Set it when you create the tensor."
    two = conversion.pack["questions"][1]
    assert two["accept"] == ["2"] and two["prompt"] == "1 + 1?"
