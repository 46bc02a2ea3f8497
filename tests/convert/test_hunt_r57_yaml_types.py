"""YAML an author may well write that the pack format does not take: each is named at its line.

A second document (`---`), a merge key (`<<: *base`) and a key that is not text got the parser's
or the validator's own words, or the top of the file; `true` in a number field passed as 1.
"""

from __future__ import annotations

import pytest

from bot.core import PackInvalid
from bot.core.packs import load_bytes
from tests.convert.helpers import one_short_pack

GOOD = one_short_pack("typed")


def problems_of(text: str) -> list[str]:
    with pytest.raises(PackInvalid) as caught:
        load_bytes("p.yaml", text.encode())
    return [str(p) for p in caught.value.problems]


def test_a_second_document_is_named_at_its_line() -> None:
    assert problems_of(GOOD + "---\npack: more\n") == [
        "p.yaml:9:1: YAML syntax: a second document starts here (`---`); a pack file holds one: "
        "remove this line and what follows, or move it to a file of its own"
    ]


def test_a_leading_document_marker_is_fine() -> None:
    assert load_bytes("p.yaml", ("---\n" + GOOD).encode()).pack.pack == "typed"


def test_a_merge_key_is_named_with_what_to_do() -> None:
    text = GOOD.replace("  - id: one\n", "  - &base\n    id: one\n") + "  - <<: *base\n    id: two\n"
    assert problems_of(text) == [
        "p.yaml:10:5: YAML merge keys (`<<`) are not supported; write the keys out in full"
    ]


def test_a_key_that_is_not_text_is_named_at_its_line() -> None:
    assert problems_of(GOOD.replace("version: 1\n", "version: 1\n1.5: x\n")) == [
        "p.yaml:4:1: unknown key `1.5` (allowed here: pack, title, version, description, language, authors, "
        "license, topics, questions)"
    ]


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        ("version: 1", "version: true", "3:10: version"),
        ("    accept:", "    points: true\n    accept:", "8:13: questions[0] (id `one`).points"),
        ("    accept:", "    attempts: false\n    accept:", "8:15: questions[0] (id `one`).attempts"),
    ],
)
def test_a_boolean_is_not_a_whole_number(old: str, new: str, where: str) -> None:
    given = new.rsplit(": ", 1)[1].split("\n")[0]
    assert problems_of(GOOD.replace(old, new)) == [f"p.yaml:{where}: `{given}` is not a whole number"]


def test_a_boolean_is_not_a_number() -> None:
    text = GOOD.replace('    accept: ["6"]\n', "    number: {value: true}\n")
    assert problems_of(text) == ["p.yaml:8:21: questions[0] (id `one`).number.value: `true` is not a number"]


def test_a_tag_the_format_does_not_know_is_named_with_what_to_do() -> None:
    text = GOOD.replace("    prompt: Say six\n", "    prompt: !include prompts/six.md\n")
    assert problems_of(text) == [
        "p.yaml:7:13: the YAML tag `!include` is not supported; remove it and write the value itself "
        "(a code item names its files with `test_file` and `solution_file`)"
    ]


def test_a_bare_equals_sign_is_text() -> None:
    """YAML 1.1 reads a plain `=` as its obscure "value" key; in a pack it is the assignment operator."""
    text = GOOD.replace('    accept: ["6"]\n', "    accept: [=, ==]\n")
    assert load_bytes("p.yaml", text.encode()).pack.questions[0].accept == ["=", "=="]  # type: ignore[union-attr]


def test_a_language_that_is_not_a_tag_says_what_a_tag_is() -> None:
    assert problems_of(GOOD.replace("version: 1\n", "version: 1\nlanguage: English\n")) == [
        "p.yaml:4:11: language: `English` is not a valid language tag (BCP 47), such as en, es, de or pt-BR"
    ]
