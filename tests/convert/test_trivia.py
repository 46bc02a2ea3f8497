"""Red-DiscordBot trivia lists and Open Trivia DB responses, converted field by field."""

from __future__ import annotations

import base64
import json

from bot.core.convert import convert_bytes

from .helpers import assumed, convert_fixture, skipped


def test_red_trivia_list() -> None:
    red = convert_fixture("pytorch_trivia.yaml")
    assert red.format == "red-trivia"
    questions = red.pack["questions"]
    assert [(q["type"], q["prompt"], q["accept"]) for q in questions] == [
        ("short", "Which submodule of torch holds the neural network layers?", ["torch.nn", "nn"]),
        ("short", "In which year was PyTorch first released?", ["2016"]),
        ("short", "Does `x.view()` share memory with `x`? (yes/no)", ["yes"]),  # not YAML's True
        ("short", "Which Python version dropped support for distutils?", ["3.12"]),  # not the float 3.12 -> "3.12"
        ("short", "What method clears the gradients held by an optimizer?", ["zero_grad", "zero_grad()", "optimizer.zero_grad()"]),
    ]
    assert [c.line for c in red.converted] == [8, 11, 13, 15, 18]
    assert red.pack["authors"] == ["Ada Example"]
    assert "topics" not in red.pack
    assert "delay: 20" in red.pack["description"] and "timeout: 120" in red.pack["description"]
    assert assumed(red)["the list's CONFIG is kept as a note in the pack's description"] == (2,)
    assert skipped(red) == {22: "the same question is already on line 8", 24: "the answers are not a list"}
    ids = [q["id"] for q in questions]
    assert len(set(ids)) == len(ids)
    assert ids == [q["id"] for q in convert_fixture("pytorch_trivia.yaml").pack["questions"]]  # stable


def test_red_answer_that_is_a_float_keeps_its_digits() -> None:
    conversion = convert_bytes("versions.yaml", b"Which Python added match statements?:\n- 3.10\n")
    assert conversion.pack["questions"][0]["accept"] == ["3.10"]


def test_opentdb_response() -> None:
    otdb = convert_fixture("opentdb-computers.json")
    assert otdb.format == "opentdb"
    q = otdb.pack["questions"]
    assert q[0]["prompt"] == 'What does the "MP" stand for in MP3?'
    assert q[0]["difficulty"] == "easy" and q[0]["topic"] == "science-computers"
    assert q[0]["choices"] == [
        {"text": "Moving Picture", "correct": True},
        {"text": "Music Player"},
        {"text": "Multi Pass"},
        {"text": "Micro Point"},
    ]
    assert "shuffle" not in q[0]
    assert q[1]["choices"] == [{"text": "True"}, {"text": "False", "correct": True}] and q[1]["shuffle"] is False
    assert q[1]["difficulty"] == "medium" and q[2]["difficulty"] == "hard"
    assert q[3]["prompt"] == 'What is the plural of "matrix" in Latin & English?'
    assert [c["text"] for c in q[3]["choices"]][2] == "Matrix's"
    assert otdb.pack["topics"] == [
        {"id": "science-computers", "title": "Science: Computers"},
        {"id": "science-mathematics", "title": "Science: Mathematics"},
    ]
    assert [(s.label, s.reason) for s in otdb.not_converted] == [("Which of these is equal to 2³?", "two choices read `8`")]


def test_opentdb_pretty_printed_gives_each_question_its_line_and_base64_is_decoded() -> None:
    def b64(text: str) -> str:
        return base64.b64encode(text.encode()).decode()

    document = {
        "response_code": 0,
        "results": [
            {"type": b64("boolean"), "difficulty": b64("easy"), "category": b64("Science: Computers"),
             "question": b64("Python lists are mutable."), "correct_answer": b64("True"), "incorrect_answers": [b64("False")]},
            {"type": b64("multiple"), "difficulty": b64("hard"), "category": b64("Science: Computers"),
             "question": b64("Which is not a Python keyword?"), "correct_answer": b64("then"),
             "incorrect_answers": [b64("yield"), b64("lambda"), b64("nonlocal")]},
        ],
    }
    conversion = convert_bytes("api.json", json.dumps(document, indent=2).encode())
    assert [c.line for c in conversion.converted] == [4, 14]
    assert conversion.pack["questions"][1]["choices"][0] == {"text": "then", "correct": True}
    assert "the response was base64-encoded; it was decoded" in assumed(conversion)


def test_red_list_with_inline_answers_is_detected_and_not_taken_for_a_pack() -> None:
    from bot.core.convert import is_native_pack

    data = b"What does `len([1, 2])` give?: [2, two]\nWhich keyword defines a function?: [def]\n"
    conversion = convert_bytes("python.yaml", data)
    assert conversion.format == "red-trivia"
    assert [q["accept"] for q in conversion.pack["questions"]] == [["2", "two"], ["def"]]
    assert not is_native_pack("python.yaml", data)
    assert is_native_pack("demo.yaml", b"pack: demo\ntitle: Demo\n") and is_native_pack("demo.zip", b"PK")
    assert not is_native_pack("quiz.xml", b"<quiz/>")
