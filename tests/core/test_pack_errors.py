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
    ("unknown top-level key", GOOD.replace("version: 1", "version: 1\nauthor: me"), 4, 1, "unknown key `author`: did you mean `authors`?"),
    ("unknown key, nothing close", GOOD.replace("version: 1", "version: 1\nzzz: me"), 4, 1, "unknown key `zzz` (allowed here: pack, title, version"),
    ("missing title", GOOD.replace("title: Errors\n", ""), 1, 1, "missing required field `title`"),
    ("bad pack id", GOOD.replace("pack: errs", "pack: Errs_Pack"), 1, 7, "pack: `Errs_Pack` is not a valid pack id: 2-40 of a-z, 0-9 and '-'"),
    ("version not an int", GOOD.replace("version: 1", "version: one"), 3, 10, "version: `one` is not a whole number"),
    ("typo in a question key", GOOD.replace("    prompt: Pick", "    promt: Pick"), 10, 5, "questions[0] (id `one`): unknown key `promt`: did you mean `prompt`?"),
    ("unknown type", GOOD.replace("type: choice", "type: quiz"), 8, 11, "questions[0] (id `one`).type: `quiz` is not one of choice, blanks, short, code"),
    ("no correct choice", GOOD.replace("{text: a, correct: true}", "{text: a}"), 11, 5, "exactly one choice must be correct (found 0)"),
    ("two correct choices", GOOD.replace("{text: b}", "{text: b, correct: true}"), 11, 5, "exactly one choice must be correct (found 2)"),
    ("yes is not a boolean", GOOD.replace("correct: true", "correct: yes"), 12, 28, "choices[0].correct: write `true` or `false`"),
    ("topic not listed", GOOD.replace("    topic: t\n", "    topic: nope\n"), 9, 5, "topic: `nope` is not in the pack's topics"),
    ("bad difficulty", GOOD.replace("    topic: t\n", "    topic: t\n    difficulty: extreme\n"), 10, 17, "questions[0] (id `one`).difficulty: `extreme` is not one of easy, medium, hard"),
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
    ("unclosed flow mapping", GOOD.replace("      - {text: b}", "      - {text: b"), 13, 9, "YAML syntax: the `{` that opens here is not closed with `}`"),
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
    assert [str(p) for p in caught.value.problems] == [
        "errs.zip/pack.yaml:11:16: questions[0] (id `c`).test_file: `../../etc/passwd` points outside the pack "
        "(absolute paths, `..` and symlinks leaving the pack are not followed)"
    ]


def test_not_a_yaml_or_zip() -> None:
    with pytest.raises(PackInvalid, match=r"a pack is a \.yaml or \.yml file"):
        load_bytes("pack.txt", b"hello")


def test_broken_zip() -> None:
    with pytest.raises(PackInvalid, match=r"not a valid \.zip"):
        load_bytes("pack.zip", b"PK\x03\x04 nonsense")


# ------------------------------------------------------------------ errors a pack author can act on


def problems_of(text: str | bytes, filename: str = "errs.yaml") -> list[str]:
    data = text.encode() if isinstance(text, str) else text
    with pytest.raises(PackInvalid) as caught:
        load_bytes(filename, data)
    return [str(p) for p in caught.value.problems]


def test_a_misspelt_key_names_the_key_it_meant_and_folds_the_missing_one() -> None:
    text = GOOD.replace("    choices:", "    choises:")
    assert problems_of(text) == ["errs.yaml:11:5: questions[0] (id `one`): unknown key `choises`: did you mean `choices`?"]


def test_a_missing_key_without_a_near_miss_is_still_reported() -> None:
    text = GOOD.replace("    choices:", "    zzz:")
    assert problems_of(text) == [
        "errs.yaml:7:5: questions[0] (id `one`): missing required field `choices`",
        "errs.yaml:11:5: questions[0] (id `one`): unknown key `zzz` (allowed here: id, title, topic, difficulty, prompt, hint, "
        "explanation, attempts, points, type, choices, multiple, shuffle)",
    ]


def test_a_wrong_value_is_named_with_what_is_allowed() -> None:
    text = QUESTION_HEAD + "  - id: s\n    type: short\n    topic: t\n    prompt: Say\n    accept: ['1']\n    verify: maybe\n"
    assert problems_of(text) == ["errs.yaml:12:13: questions[0] (id `s`).verify: `maybe` is not one of none, output"]


def test_an_unclosed_quote_is_found_where_it_opens_not_where_the_parser_gives_up() -> None:
    lines = GOOD.splitlines()
    assert lines[5] == "questions:" and lines[9] == "    prompt: Pick"
    # Line 10 opens a quote it never closes; the next quote (line 12) closes it and the parser trips there.
    text = GOOD.replace("    prompt: Pick", '    prompt: "Pick one').replace("{text: a, correct: true}", '{text: "a", correct: true}')
    found = problems_of(text)
    assert len(found) == 1
    assert found[0].startswith('errs.yaml:10:13: YAML syntax: the quote (") that opens here is not closed on this line')
    assert "YAML read on to line 12" in found[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('pack: errs\ntitle: "Errors\n', "errs.yaml:2:8: YAML syntax: the quote that opens here is never closed"),
        ("pack: errs\ntitle: Errors: the sequel\n", "errs.yaml:2:14: YAML syntax: a `: ` inside a value; put the value in quotes"),
        ("pack: errs\n\ttitle: Errors\n", "errs.yaml:2:1: YAML syntax: a tab character; indent with spaces only"),
        ("pack: errs\ntitle\nversion: 1\n", "errs.yaml:2:1: YAML syntax: this line has no `:`; write `key: value`"),
        ("pack: errs\ntopics: [a, b\ntitle: x\n", "errs.yaml:2:9: YAML syntax: the `[` that opens here is not closed with `]`"),
        ("pack: errs\ntitle: *name\n", "errs.yaml:2:8: YAML syntax: an alias (`*name`) with no anchor (`&name`) above it"),
    ],
    ids=["quote never closed", "colon in a value", "tab", "no colon", "unclosed list", "undefined alias"],
)
def test_yaml_syntax_errors_in_plain_words(text: str, expected: str) -> None:
    found = problems_of(text)
    assert len(found) == 1 and found[0].startswith(expected), found


# ------------------------------------------------------------------ malformed input: one clear line each


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (GOOD.replace("title: Errors", "title: Err\x00ors"), "errs.yaml:2:11: YAML syntax: the character U+0000 is not allowed in YAML"),
        (GOOD.replace("title: Errors", 'title: "Err\\0ors"'), "errs.yaml:2:8: a NUL character (\\0) in this text; no database stores it"),
        (GOOD.replace("title: Errors", 'title: "Err\\ud800ors"'), "errs.yaml:2:8: a lone surrogate"),
        (GOOD.replace("version: 1", "version: 2147483648"), "errs.yaml:3:10: version: `2147483648` is out of range (must be at most 2147483647)"),
        (GOOD.replace("version: 1", "version: 0"), "errs.yaml:3:10: version: `0` is out of range (must be at least 1)"),
        (
            GOOD.replace("topics:\n  - {id: t, title: T}\n", "").replace("topic: t", "topic: " + "x" * 65),
            "errs.yaml:7:12: questions[0] (id `one`).topic: 65 characters, at most 64 allowed",
        ),
        (
            QUESTION_HEAD + "  - id: n\n    type: short\n    topic: t\n    prompt: Say\n    number: {value: .nan}\n",
            "errs.yaml:11:21: questions[0] (id `n`).number.value: must be a finite number",
        ),
        ("a: &x [*x]\n" + GOOD, "errs.yaml:1:4: nested more than 32 levels deep (an alias that contains itself?)"),
        ("a: " + "[" * 2000 + "]" * 2000 + "\n" + GOOD, "errs.yaml:1:35: nested more than 32 levels deep"),
    ],
    ids=["NUL byte", "NUL escape", "lone surrogate", "version too large", "version zero", "topic too long", "NaN", "recursive alias", "deep nesting"],
)
def test_malformed_input_gets_one_located_line(text: str, expected: str) -> None:
    found = problems_of(text)
    assert len(found) == 1 and found[0].startswith(expected), found


def test_limits_are_what_both_databases_store() -> None:
    text = GOOD.replace("version: 1", "version: 2147483647").replace("topics:\n  - {id: t, title: T}\n", "")
    loaded = load_bytes("errs.yaml", text.replace("topic: t", "topic: " + "é" * 64).encode())
    assert loaded.pack.version == 2**31 - 1
    assert loaded.pack.questions[0].topic == "é" * 64


CODE_PACK = QUESTION_HEAD + (
    "  - id: c\n    type: code\n    topic: t\n    prompt: Write\n    test_file: tests/c.py\n    solution_file: solutions/c.py\n"
)


def zipped(members: dict[str, bytes], *, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def test_a_non_utf8_test_file_is_named_in_a_folder_and_in_a_zip(tmp_path) -> None:
    folder = tmp_path / "errs"
    (folder / "tests").mkdir(parents=True)
    (folder / "solutions").mkdir()
    (folder / "pack.yaml").write_text(CODE_PACK, encoding="utf-8")
    (folder / "tests" / "c.py").write_bytes(b"import user_code\n# caf\xe9\n")
    (folder / "solutions" / "c.py").write_text("x = 1\n", encoding="utf-8")
    from bot.core.packs import load_path

    with pytest.raises(PackInvalid) as caught:
        load_path(folder)
    assert [str(p) for p in caught.value.problems] == [
        f"{folder / 'pack.yaml'}:11:16: questions[0] (id `c`).test_file: `tests/c.py` is not UTF-8 text (byte 22, line 2)"
    ]
    data = zipped({"errs/pack.yaml": CODE_PACK.encode(), "errs/tests/c.py": b"import user_code\n\xff\n", "errs/solutions/c.py": b"x = 1\n"})
    assert problems_of(data, "errs.zip") == [
        "errs.zip/errs/pack.yaml:11:16: questions[0] (id `c`).test_file: `tests/c.py` is not UTF-8 text (byte 17, line 2)"
    ]


def _corrupt_crc(data: bytes, name: bytes) -> bytes:
    """Flip the stored CRC of a member in its local header and the central directory."""
    out = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", 14), (b"PK\x01\x02", 16)):
        start = 0
        while (at := out.find(signature, start)) >= 0:
            name_at = at + (30 if signature == b"PK\x03\x04" else 46)
            if out[name_at : name_at + len(name)] == name:
                out[at + offset] ^= 0xFF
            start = at + 4
    return bytes(out)


def test_a_zip_member_with_a_bad_checksum_is_named() -> None:
    data = zipped({"pack.yaml": CODE_PACK.encode(), "tests/c.py": b"import user_code\n" * 20, "solutions/c.py": b"x = 1\n"})
    found = problems_of(_corrupt_crc(data, b"tests/c.py"), "errs.zip")
    assert found == [
        "errs.zip/pack.yaml:11:16: questions[0] (id `c`).test_file: `tests/c.py` cannot be unpacked: "
        "its checksum does not match (a damaged .zip)"
    ]
    assert problems_of(_corrupt_crc(data, b"pack.yaml"), "errs.zip") == [
        "errs.zip/pack.yaml:1:1: the file cannot be unpacked: its checksum does not match (a damaged .zip)"
    ]


def _set_header(data: bytes, *, flag: int | None = None, method: int | None = None) -> bytes:
    """Rewrite every member's flag bits or compression method, as an encrypting or exotic zip tool would."""
    out = bytearray(data)
    for signature, flag_at, method_at in ((b"PK\x03\x04", 6, 8), (b"PK\x01\x02", 8, 10)):
        start = 0
        while (at := out.find(signature, start)) >= 0:
            if flag is not None:
                out[at + flag_at : at + flag_at + 2] = (int.from_bytes(out[at + flag_at : at + flag_at + 2], "little") | flag).to_bytes(2, "little")
            if method is not None:
                out[at + method_at : at + method_at + 2] = method.to_bytes(2, "little")
            start = at + 4
    return bytes(out)


def test_an_encrypted_zip_is_refused_in_one_line() -> None:
    data = zipped({"pack.yaml": GOOD.encode()}, compression=zipfile.ZIP_STORED)
    assert problems_of(_set_header(data, flag=0x1), "errs.zip") == [
        "errs.zip/pack.yaml:1:1: the file is encrypted; zip the pack without a password"
    ]


def test_a_zip_with_an_unknown_compression_method_is_refused_in_one_line() -> None:
    data = zipped({"pack.yaml": GOOD.encode()}, compression=zipfile.ZIP_STORED)
    assert problems_of(_set_header(data, method=99), "errs.zip") == [
        "errs.zip/pack.yaml:1:1: the file uses compression method 99; use the standard one (deflate)"
    ]


def test_problems_are_capped() -> None:
    questions = "".join(f"  - id: q{i}\n    type: short\n    topic: t\n    prompt: Say\n" for i in range(150))
    found = problems_of(QUESTION_HEAD + questions)
    assert len(found) == 100
    assert found[-1].endswith("... and 51 more problems")
