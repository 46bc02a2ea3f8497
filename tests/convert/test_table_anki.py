"""Spreadsheets (CSV and TSV) and Anki text exports, converted field by field."""

from __future__ import annotations

import csv
import io

from bot.core.convert import convert_bytes, csv_template

from .helpers import assumed, convert_fixture, item, skipped


def test_csv_saved_by_a_spreadsheet() -> None:
    sheet = convert_fixture("pytorch-sheet.csv")
    assert sheet.format == "csv"
    assert [(c.type, c.line) for c in sheet.converted] == [
        ("choice", 2), ("choice", 3), ("short", 4), ("short", 5), ("blanks", 6), ("short", 11)
    ]
    q = sheet.pack["questions"]
    assert q[0]["topic"] == "tensors" and q[0]["difficulty"] == "easy"
    assert q[0]["hint"] == "The shape is given as separate sizes."
    assert q[0]["choices"] == [
        {"text": "torch.zeros(2, 3)", "correct": True},
        {"text": "torch.zeros([6])"},
        {"text": "torch.empty(2, 3)"},
    ]
    assert q[1]["multiple"] is True and [c.get("correct", False) for c in q[1]["choices"]] == [True, True, False]
    assert q[2]["accept"] == ["6"] and q[2]["number"] == {"value": 6, "tolerance": 0}
    assert q[3]["number"] == {"value": 3, "tolerance": 0.01} and "accept" not in q[3]
    assert q[4]["prompt"] == "Complete the code so that `x.grad` is filled."
    assert q[4]["code"] == "x = torch.ones(2, requires_grad={{1}})\nx.sum().{{2}}()\n"
    assert q[4]["options"] == ["True", "False", "backward", "grad"]
    assert q[4]["answers"] == {1: "True", 2: "backward"}
    assert q[5]["accept"] == ["item", ".item()", "item()"] and q[5]["difficulty"] == "hard"
    assert q[5]["explanation"] == "`x.item()` returns a Python int or float."
    assert sheet.pack["topics"] == [{"id": "tensors", "title": "Tensors"}, {"id": "autograd", "title": "Autograd"}]
    assert skipped(sheet) == {
        12: "code items need a unittest file; write them in the pack's YAML",
        13: "difficulty `brutal`: write easy, medium or hard",
        14: "the row has 4 columns; the header has 8",
    }


def test_tsv_with_an_id_column_and_a_multiline_cell() -> None:
    text = (
        "id\ttype\ttopic\tprompt\tanswer\toptions\thint\texplanation\tdifficulty\n"
        'grad-flag\tchoice\tAutograd\t"Which flag?\nPick one."\trequires_grad\trequires_grad|track\t\t\thard\n'
        "sum\tshort\tAutograd\t2 + 2?\t4\t\t\t\t\n"
    )
    conversion = convert_bytes("sheet.tsv", text.encode())
    assert [(c.id, c.line) for c in conversion.converted] == [("grad-flag", 2), ("sum", 4)]
    assert item(conversion, "grad-flag")["prompt"] == "Which flag?\nPick one."


def test_the_template_converts_as_it_is() -> None:
    template = csv_template()
    header = next(csv.reader(io.StringIO(template)))
    assert header == ["type", "topic", "prompt", "answer", "options", "hint", "explanation", "difficulty"]
    conversion = convert_bytes("template.csv", template.encode())
    assert conversion.counts() == {"choice": 2, "blanks": 1, "short": 2}
    assert not conversion.not_converted


def test_anki_notes_export() -> None:
    anki = convert_fixture("anki-pytorch.txt")
    assert anki.format == "anki"
    q = anki.pack["questions"]
    assert [(c.type, c.line, c.source_type) for c in anki.converted] == [
        ("short", 7, "note"), ("short", 8, "note"), ("short", 10, "cloze"), ("blanks", 11, "cloze"), ("short", 12, "cloze")
    ]
    assert q[0]["prompt"] == "What function makes a tensor of zeros?" and q[0]["accept"] == ["torch.zeros"]
    assert q[0]["topic"] == "tensors" and q[2]["topic"] == "autograd"
    assert q[1]["prompt"] == "Which dtype does `torch.tensor([1, 2])` get?"
    assert q[2]["prompt"] == "Calling _____ fills the `.grad` of every leaf."
    assert q[2]["accept"] == ["backward()"] and q[2]["explanation"] == "See the autograd notes."
    assert q[3]["code"] == "A tensor created by the user with {{1}} is a {{2}}.\n"
    assert q[3]["answers"] == {1: "requires_grad=True", 2: "leaf"} and q[3]["hint"] == "kind of tensor"
    assert q[4]["prompt"] == 'The call `_____` shares memory; "reshape" may copy.' and q[4]["accept"] == ["x.view(4)"]
    ids = [x["id"] for x in q]
    assert all(i.startswith("anki-") for i in ids) and len(set(ids)) == len(ids)
    reasons = skipped(anki)
    assert reasons[9].startswith("the answer is 146 characters on several lines")
    assert reasons[13] == "the card has no back to check an answer against"
    assert "Anki tags are not carried" in assumed(anki)


def test_anki_export_without_headers() -> None:
    conversion = convert_bytes("deck.txt", b"2 + 2?\t4\nCapital of France?\tParis\n")
    assert conversion.format == "anki"
    assert [q["accept"] for q in conversion.pack["questions"]] == [["4"], ["Paris"]]
    assert "topics" not in conversion.pack


def test_semicolon_csv_and_an_escaped_bar() -> None:
    text = "type;prompt;answer;options\nchoice;Which is bitwise or?;a \\| b;a \\| b|a or b\nshort;Set union of a and b?;a \\| b|a.union(b);\n"
    conversion = convert_bytes("sheet.csv", text.encode())
    first, second = conversion.pack["questions"]
    assert first["choices"] == [{"text": "a | b", "correct": True}, {"text": "a or b"}]
    assert second["accept"] == ["a | b", "a.union(b)"]
