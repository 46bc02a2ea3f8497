"""Malformed packs: each gets the exact line, column and field, and changes nothing stored."""

from __future__ import annotations

import io
import textwrap
import zipfile

import pytest

from bot.core import Actor, PackInvalid, QuizService
from bot.core.packs import load_bytes

ADMIN = Actor("console", "local", "root", "root", is_admin=True)

GOOD = """\
pack: errs
title: Errors
version: 1
topics:
  - {id: t, title: T}
questions:
  - id: one
    type: choice
    topic: t
    prompt: Pick
    choices:
      - {text: a, correct: true}
      - {text: b}
"""

QUESTION_HEAD = GOOD.split("  - id: one")[0]

CASES = [
    # (name, yaml text, line, col, fragment of the message)
    ("unknown top-level key", GOOD.replace("version: 1", "version: 1\nauthor: me"), 4, 1, "author: unknown field"),
    ("missing title", GOOD.replace("title: Errors\n", ""), 1, 1, "missing required field `title`"),
    ("bad pack id", GOOD.replace("pack: errs", "pack: Errs_Pack"), 1, 7, "pack: String should match pattern"),
    ("version not an int", GOOD.replace("version: 1", "version: one"), 3, 10, "version: Input should be a valid integer"),
    ("typo in a question key", GOOD.replace("    prompt: Pick", "    promt: Pick"), 10, 5, "questions[0] (id `one`).promt: unknown field"),
    ("unknown type", GOOD.replace("type: choice", "type: quiz"), 8, 11, "questions[0] (id `one`).type: must be one of"),
    ("no correct choice", GOOD.replace("{text: a, correct: true}", "{text: a}"), 11, 5, "exactly one choice must be correct (found 0)"),
    ("two correct choices", GOOD.replace("{text: b}", "{text: b, correct: true}"), 11, 5, "exactly one choice must be correct (found 2)"),
    ("yes is not a boolean", GOOD.replace("correct: true", "correct: yes"), 12, 28, "choices[0].correct: write `true` or `false`"),
    ("topic not listed", GOOD.replace("    topic: t\n", "    topic: nope\n"), 9, 5, "topic: `nope` is not in the pack's topics"),
    ("bad difficulty", GOOD.replace("    topic: t\n", "    topic: t\n    difficulty: extreme\n"), 10, 17, "difficulty: Input should be 'easy', 'medium' or 'hard'"),
    (
        "duplicate ids",
        GOOD + "  - id: one\n    type: short\n    topic: t\n    prompt: Say\n    accept: [x]\n",
        14, 5, "duplicate id, first used by questions[0]",
    ),
    (
        "blank without answer",
        QUESTION_HEAD + "  - id: b\n    type: blanks\n    topic: t\n    prompt: Fill\n    code: 'x = {{1}} + {{2}}'\n"
        "    options: [a, b]\n    answers: {1: a}\n",
        13, 5, "blank {{2}} has no answer",
    ),
    (
        "answer for a missing blank",
        QUESTION_HEAD + "  - id: b\n    type: blanks\n    topic: t\n    prompt: Fill\n    code: 'x = {{1}}'\n"
        "    options: [a, b]\n    answers: {1: a, 3: b}\n",
        13, 21, "answers.3: there is no blank {{3}} in `code`",
    ),
    (
        "answer not among the options",
        QUESTION_HEAD + "  - id: b\n    type: blanks\n    topic: t\n    prompt: Fill\n    code: 'x = {{1}}'\n"
        "    options: [a, b]\n    answers: {1: c}\n",
        13, 15, "answers.1: `c` is not one of the options",
    ),
    (
        "short without accept or number",
        QUESTION_HEAD + "  - id: s\n    type: short\n    topic: t\n    prompt: Say\n",
        7, 5, "a short question needs `accept` or `number`",
    ),
    (
        "code without solution",
        QUESTION_HEAD + "  - id: c\n    type: code\n    topic: t\n    prompt: Write\n    test: 'import user_code'\n",
        7, 5, "give exactly one of `solution` and `solution_file`",
    ),
    (
        "test_file that does not exist",
        QUESTION_HEAD + "  - id: c\n    type: code\n    topic: t\n    prompt: Write\n    test_file: tests/missing.py\n"
        "    solution: 'x = 1'\n",
        11, 16, "test_file: file `tests/missing.py` not found",
    ),
    ("duplicate key", GOOD.replace("title: Errors\n", "title: Errors\ntitle: Again\n"), 3, 1, "duplicate key 'title'"),
    ("YAML syntax error", GOOD.replace("      - {text: b}", "      - {text: b"), 14, 1, "YAML syntax"),
    (
        "verify output without a code block",
        QUESTION_HEAD + "  - id: s\n    type: short\n    topic: t\n    prompt: Say\n    accept: ['1']\n    verify: output\n",
        12, 5, "`output` needs a fenced code block",
    ),
]


@pytest.mark.parametrize(("name", "text", "line", "col", "fragment"), CASES, ids=[c[0] for c in CASES])
async def test_malformed_pack_is_located_and_stores_nothing(
    service: QuizService, name: str, text: str, line: int, col: int, fragment: str
) -> None:
    before = await service.enabled_packs_all()
    with pytest.raises(PackInvalid) as caught:
        await service.load_pack(ADMIN, "errs.yaml", text.encode())
    problems = caught.value.problems
    assert any(p.line == line and p.col == col and fragment in p.message for p in problems), [str(p) for p in problems]
    assert all(str(p).startswith("errs.yaml:") for p in problems)
    assert await service.enabled_packs_all() == before
    assert await service.pack("errs") is None


def test_the_good_pack_loads() -> None:
    loaded = load_bytes("errs.yaml", GOOD.encode())
    assert loaded.pack.questions[0].id == "one"
    assert loaded.lines["one"] == (7, 5)


def test_zip_pack_with_files(tmp_path) -> None:
    pack_yaml = QUESTION_HEAD + textwrap.dedent(
        """\
          - id: c
            type: code
            topic: t
            prompt: Write
            test_file: tests/c.py
            solution_file: solutions/c.py
        """
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("errs/pack.yaml", pack_yaml)
        archive.writestr("errs/tests/c.py", "import unittest\nimport user_code\n")
        archive.writestr("errs/solutions/c.py", "x = 1\n")
    loaded = load_bytes("errs.zip", buffer.getvalue())
    question = loaded.pack.questions[0]
    assert question.test == "import unittest\nimport user_code\n"  # type: ignore[union-attr]
    assert question.solution == "x = 1\n"  # type: ignore[union-attr]


def test_zip_cannot_reach_outside_its_folder() -> None:
    pack_yaml = QUESTION_HEAD + (
        "  - id: c\n    type: code\n    topic: t\n    prompt: Write\n    test_file: ../../etc/passwd\n    solution: 'x = 1'\n"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("pack.yaml", pack_yaml)
    with pytest.raises(PackInvalid) as caught:
        load_bytes("errs.zip", buffer.getvalue())
    assert "not found beside the pack" in str(caught.value)


def test_not_a_yaml_or_zip() -> None:
    with pytest.raises(PackInvalid, match=r"a pack is a \.yaml or \.yml file"):
        load_bytes("pack.txt", b"hello")


def test_broken_zip() -> None:
    with pytest.raises(PackInvalid, match=r"not a valid \.zip"):
        load_bytes("pack.zip", b"PK\x03\x04 nonsense")
