"""Bad input: each malformed or hostile file gets the line and a plain message, and nothing else."""

from __future__ import annotations

import pytest

from bot.core.convert import MAX_INPUT_BYTES, ConvertError, convert_bytes
from bot.core.errors import QuizError


def refused(filename: str, data: bytes, **options: str) -> ConvertError:
    with pytest.raises(ConvertError) as caught:
        convert_bytes(filename, data, **options)
    assert isinstance(caught.value, QuizError)
    return caught.value


def test_broken_xml_names_the_line() -> None:
    error = refused("quiz.xml", b'<?xml version="1.0"?>\n<quiz>\n  <question type="truefalse">\n  </questoin>\n</quiz>\n')
    assert str(error) == "quiz.xml:4: broken XML: mismatched tag"


def test_external_entities_are_refused_before_reading_anything() -> None:
    xxe = (
        b'<?xml version="1.0"?>\n<!DOCTYPE quiz [<!ENTITY secret SYSTEM "file:///etc/passwd">]>\n'
        b"<quiz><question type=\"description\"><name><text>&secret;</text></name></question></quiz>\n"
    )
    error = refused("xxe.xml", xxe)
    assert error.line == 2
    assert "DTDs and entities are refused" in error.message
    assert "root:" not in str(error)


def test_billion_laughs_is_refused() -> None:
    lol = b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
    lol += b"".join(
        f' <!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">\n'.encode() for i in range(1, 10)
    )
    lol += b"]>\n<quiz>&lol9;</quiz>\n"
    error = refused("lol.xml", lol)
    assert error.line == 2 and "DTD" in error.message


def test_undeclared_entity_and_wrong_root() -> None:
    assert str(refused("q.xml", b"<quiz>\n&nope;</quiz>")) == "q.xml:2: broken XML: undefined entity"
    assert str(refused("q.xml", b"<?xml version='1.0'?>\n<questions/>")) == (
        "q.xml:2: the root element is <questions>; a Moodle XML export starts with <quiz>"
    )


def test_deep_xml_is_refused() -> None:
    error = refused("deep.xml", b"<quiz>" + b"<a>" * 200 + b"</a>" * 200 + b"</quiz>")
    assert "nests deeper than 40 levels" in error.message


def test_unclosed_gift_brace_names_its_line() -> None:
    gift = b"// intro\n::One::1 + 1?{=2}\n\n::Two::Which flag?{\n=requires_grad\n~track\n\n::Three::x?{=y}\n"
    error = refused("quiz.gift", gift)
    assert str(error) == "quiz.gift:4: `{` opens an answer block that is never closed (a GIFT question ends at a blank line)"


def test_stray_gift_brace() -> None:
    error = refused("quiz.gift", b"::One::1 + 1?{=2}\n\n::Two::a } b {=c}\n")
    assert error.line == 3 and "never opened" in error.message


def test_csv_row_with_a_missing_column_is_listed_with_its_line() -> None:
    text = b"type,topic,prompt,answer,options,hint,explanation,difficulty\nshort,T,1 + 1?,2,,,,easy\nshort,T,2 + 2?,4\n"
    conversion = convert_bytes("sheet.csv", text)
    assert [c.line for c in conversion.converted] == [2]
    [left] = conversion.not_converted
    assert left.describe("sheet.csv") == "sheet.csv:3: `2 + 2?` (short): the row has 4 columns; the header has 8"


def test_csv_with_only_a_bad_row_converts_nothing() -> None:
    conversion = convert_bytes("sheet.csv", b"type,prompt,answer\nshort,2 + 2?\n")
    assert not conversion.ok and conversion.loaded is None
    assert conversion.report_lines()[1:] == ["Not converted (1):", "  sheet.csv:2: `2 + 2?` (short): the row has 2 columns; the header has 3"]


def test_csv_unclosed_quote_and_missing_header() -> None:
    error = refused("sheet.csv", b'type,prompt,answer\nshort,"2 + 2?,4\nshort,3,3\n')
    assert error.line == 2 and error.message.startswith("broken CSV")
    assert not convert_bytes("sheet.csv", b"type,prompt,answer,options\n").ok  # a header alone: nothing to convert
    error = refused("sheet.csv", b"kind,question\nshort,2?\n", fmt="csv")
    assert str(error) == (
        "sheet.csv:1: the header row names no answer column (it reads: kind, question); name them as in "
        "Question,Answer or Front,Back or Question,A,B,C,D,Answer, or say which is which with --map COLUMN=FIELD"
    )


def test_broken_json_and_yaml_name_the_line() -> None:
    assert str(refused("api.json", b'{"response_code": 0,\n "results": [\n  {"type": }\n]}', fmt="opentdb")) == (
        "api.json:3: broken JSON: Expecting value"
    )
    assert refused("api.json", b'{"response_code": 5, "results": []}').message == (
        "response_code 5: the API rate limit was hit"
    )
    error = refused("list.yaml", b"AUTHOR: me\nWhat is 1 + 1?:\n- 2\n  - 3: [\n", fmt="red-trivia")
    assert error.line == 4 and error.message.startswith("broken YAML")


def test_unknown_format_lists_the_known_ones() -> None:
    error = refused("notes.txt", b"Just some notes about tensors.\nNothing quiz-like here.\n")
    assert str(error) == (
        "notes.txt: this is not a quiz file I know; known formats: moodle-xml, gift, red-trivia, opentdb, csv, anki, anki-package "
        "(name one with --format if the file is one of them)"
    )
    assert "known formats: moodle-xml, gift" in refused("x.txt", b"a", fmt="docx").message


def test_size_cap_is_enforced_before_parsing() -> None:
    huge = b"<quiz>" + b" " * MAX_INPUT_BYTES + b"</quiz>"
    error = refused("big.xml", huge)
    assert error.message == "the file is 5.0 MiB; the limit is 5 MiB"


def test_not_utf8_and_bad_options() -> None:
    error = refused("deck.txt", b"front\tback\nna\xefve\tx\n", fmt="anki")
    assert error.line == 2 and "not UTF-8" in error.message
    assert "pack id `X Y`" in refused("a.gift", b"1?{=1}", pack_id="X Y").message
    assert "title" in refused("a.gift", b"1?{=1}", title="").message


def test_gift_with_nothing_convertible_is_not_ok() -> None:
    conversion = convert_bytes("essays.gift", b"::A::Explain autograd.{}\n\n::B::Intro text.\n")
    assert not conversion.ok
    assert conversion.summary() == "Converted 0 items from GIFT; 2 not converted."


def test_item_cap() -> None:
    many = "".join(f"Question {i}?:\n- {i}\n" for i in range(5001)).encode()
    error = refused("huge.yaml", many)
    assert str(error) == "huge.yaml:10001: the file holds more than 5000 items; a pack holds at most 5000: split the file"


def test_deep_json_and_yaml_are_refused() -> None:
    deep_json = b'{"results": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert refused("deep.json", deep_json).message == "the JSON nests too deeply"
    deep_yaml = b"Q?: " + b"[" * 100_000 + b"]" * 100_000 + b"\n"
    error = refused("deep.yaml", deep_yaml)
    assert error.line == 1 and error.message.startswith("broken YAML")


def test_an_open_trivia_db_refusal_is_said_in_the_admins_language() -> None:
    from bot.core.i18n import said, use_locale

    message = refused("api.json", b'{"response_code": 5, "results": []}').message
    with use_locale("de"):
        assert said(message) == "response_code 5: das Anfragelimit der API wurde erreicht"
    with use_locale("es"):
        assert said(message) == "response_code 5: se alcanzó el límite de peticiones de la API"
