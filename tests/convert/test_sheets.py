"""Spreadsheets as people write them: their own column names, in any order and case, or `--map`."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.convert import ConvertError, convert_bytes
from tests.core.test_cli import quizbot

from .helpers import IMPORT_FIXTURES, assumed, convert_fixture, skipped


def test_question_answer_sheet_saved_by_excel() -> None:
    sheet = convert_fixture("capitals-question-answer.csv")
    assert sheet.format == "csv"
    questions = sheet.pack["questions"]
    assert [(q["prompt"], q["accept"]) for q in questions] == [
        ("What is the capital of France?", ["Paris"]),
        ("How many bits are in a byte?", ["8"]),
        ('Who wrote "Hamlet"?', ["William Shakespeare"]),
        ("What does CPU stand for?", ["Central Processing Unit"]),
    ]
    assert skipped(sheet) == {
        6: "the answer is 134 characters; a learner would have to type it back word for word: "
        "shorten it to under 100 characters, or make the item a choice question"
    }
    assert "columns: `Question` → the question; `Answer` → the right answer" in assumed(sheet)


def test_front_back_sheet_as_tsv() -> None:
    sheet = convert_fixture("german-front-back.tsv")
    assert [(q["prompt"], q["accept"]) for q in sheet.pack["questions"]] == [
        ("der Hund", ["the dog"]), ("die Katze", ["the cat"]), ("laufen", ["to run"]), ("schnell", ["fast"])
    ]
    assert "columns: `Front` → the question; `Back` → the right answer; `Tags` → not read" in assumed(sheet)


def test_question_four_options_and_an_answer_letter() -> None:
    sheet = convert_fixture("python-mcq.csv")
    questions = sheet.pack["questions"]
    right = [[c["text"] for c in q["choices"] if c.get("correct")] for q in questions]
    # `2` is the second option even though another option reads `2`: every answer is a letter or a number
    assert right == [["len()"], ["def"], ["3"], ["tuple"], ["until"]]
    assert [len(q["choices"]) for q in questions] == [4, 4, 4, 4, 3]
    assert questions[0]["explanation"] == "len() works on any sized container."
    assert [q["difficulty"] for q in questions] == ["easy", "easy", "medium", "medium", "hard"]
    assert [t["title"] for t in sheet.pack["topics"]] == ["Built-ins", "Syntax", "Operators", "Types"]
    assert skipped(sheet) == {7: "the answer `E` is none of the 4 options, nor an option's letter or number"}


def test_answer_text_beside_wrong_answer_columns_and_any_order() -> None:
    text = "Correct Answer;Incorrect 1;Incorrect 2;QUESTION\nParis;Rome;Berlin;Capital of France?\n"
    sheet = convert_bytes("quiz.csv", text.encode())
    (q,) = sheet.pack["questions"]
    assert q["choices"] == [{"text": "Paris", "correct": True}, {"text": "Rome"}, {"text": "Berlin"}]


def test_map_overrides_the_header() -> None:
    text = "Word,Meaning,Notes\nHund,dog,a noun\n"
    with pytest.raises(ConvertError, match="names no question and no answer column"):
        convert_bytes("words.csv", text.encode(), fmt="csv")
    sheet = convert_bytes("words.csv", text.encode(), column_map={"word": "prompt", "meaning": "answer", "notes": "explanation"})
    (q,) = sheet.pack["questions"]
    assert (q["prompt"], q["accept"], q["explanation"]) == ("Hund", ["dog"], "a noun")
    with pytest.raises(ConvertError, match="--map names nope"):
        convert_bytes("words.csv", text.encode(), fmt="csv", column_map={"nope": "prompt"})


def test_map_on_the_command_line(tmp_path: Path) -> None:
    sheet = tmp_path / "words.csv"
    sheet.write_text("Word,Meaning\nHund,dog\nKatze,cat\n", encoding="utf-8")
    result = quizbot(
        "pack", "convert", str(sheet), "--map", "word=prompt", "--map", "Meaning=answer", "-o", "out.zip", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "  - columns: `Word` → the question; `Meaning` → the right answer" in result.stdout.splitlines()
    bad = quizbot("pack", "convert", str(sheet), "--map", "Word=question", cwd=tmp_path)
    assert bad.returncode == 2 and "a column can become type, id, topic" in bad.stderr
    assert (IMPORT_FIXTURES / "python-mcq.csv").is_file()
