"""Hostile and broken files: each is refused or read with bounded work, with the line, and never crashes.

Work is bounded without timing it: a file past a cap is refused at the line of the first item over
the cap (so the rest was never read), and peak memory is measured with tracemalloc.
"""

from __future__ import annotations

import io
import sqlite3
import tracemalloc
import zipfile
from collections.abc import Callable

import pytest

from bot.core.convert import ConvertError, convert_bytes
from bot.core.convert.columns import describe, guess
from bot.core.i18n import said

from .anki_build import BASIC, NOTES, schema11

MB = 1024 * 1024


def refused(filename: str, data: bytes, **options: str) -> ConvertError:
    with pytest.raises(ConvertError) as caught:
        convert_bytes(filename, data, **options)
    return caught.value


def peak_mib(work: Callable[[], object]) -> float:
    tracemalloc.start()
    try:
        work()
    except ConvertError:
        pass
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak / MB


# ------------------------------------------------------------------ XML


@pytest.mark.parametrize("encoding", ["x-bogus", "UTF-7"])
def test_an_xml_encoding_expat_cannot_read_is_refused_by_name(encoding: str) -> None:
    error = refused("quiz.xml", f"<?xml version='1.0' encoding='{encoding}'?>\n<quiz/>".encode())
    assert str(error) == f"quiz.xml:1: the XML declares the encoding `{encoding}`, which cannot be read: save the file as UTF-8"


def test_xml_of_many_small_elements_is_refused_at_the_cap() -> None:
    error = refused("many.xml", b"<quiz>" + b"<a/>" * 300_001 + b"</quiz>")
    assert error.message == "the XML holds more than 300000 elements"


def test_a_huge_attribute_does_not_fill_the_report() -> None:
    conversion = convert_bytes("quiz.xml", b"<quiz><question type='" + b"x" * MB + b"'/></quiz>")
    [left] = conversion.not_converted
    assert len(left.describe("quiz.xml")) < 300


# ------------------------------------------------------------------ caps reached early


@pytest.mark.parametrize(
    ("name", "data", "line"),
    [
        ("sheet.csv", b"question,answer\n" + b"q,a\n" * 100_000, 5002),
        ("deck.txt", b"#separator:tab\n" + b"".join(b"q%d\ta\n" % i for i in range(100_000)), 5002),
        ("quiz.gift", b"".join(b"q%d?{=a}\n\n" % i for i in range(20_000)), 10_001),
    ],
)
def test_a_file_of_too_many_items_is_refused_at_the_first_item_past_the_cap(name: str, data: bytes, line: int) -> None:
    error = refused(name, data)
    assert str(error) == f"{name}:{line}: the file holds more than 5000 items; a pack holds at most 5000: split the file"


def test_a_trivia_list_of_too_many_questions_is_refused_before_it_is_composed() -> None:
    data = b"".join(b"q%d: [a]\n" % i for i in range(60_000))
    assert peak_mib(lambda: convert_bytes("list.yaml", data)) < 40  # composing it took over 100 MiB
    assert refused("list.yaml", data).line == 5001


def test_a_file_of_rows_that_all_fail_is_refused_instead_of_listing_them_all() -> None:
    error = refused("essays.gift", b"".join(b"::E%d::Explain it.{}\n\n" % i for i in range(6000)))
    assert error.line == 10_001
    assert error.message.startswith("more than 5000 items cannot be converted; the first, on line 1: ")


def test_blank_rows_are_not_held_in_memory() -> None:
    data = b"question,answer\nq,a\n" + b"\n" * (MB // 2)
    assert peak_mib(lambda: convert_bytes("sheet.csv", data)) < 20  # every blank row kept took 81 MiB (2.5 now)


def test_a_header_of_many_columns_is_refused_and_its_description_stays_shallow() -> None:
    error = refused("sheet.csv", b",".join(b"c%d" % i for i in range(600)) + b",question,answer\nq,a\n")
    assert str(error) == "sheet.csv:1: the header row has 602 columns; a sheet may have at most 500"
    text = said(describe([guess(f"c{i}") for i in range(3000)]))  # nested one by one, saying it overflowed the stack
    assert text.startswith("columns: `c0` → not read; `c1` → not read") and text.endswith("`c2999` → not read")


# ------------------------------------------------------------------ texts that cannot be stored


def test_a_nul_in_one_row_leaves_out_that_row_with_its_line() -> None:
    conversion = convert_bytes("sheet.csv", b"question,answer\nwhat\x00is,1\nq2,2\n")
    assert [c.line for c in conversion.converted] == [3]
    assert [(s.line, s.reason) for s in conversion.not_converted] == [(2, "a NUL character (\\0) in this text; no database stores it")]


def test_a_lone_surrogate_from_a_json_escape_leaves_out_that_question() -> None:
    item = '{"type":"boolean","difficulty":"easy","category":"c","question":"%s","correct_answer":"True","incorrect_answers":["False"]}'
    data = ('{"response_code":0,"results":[' + item % "bad \\ud800 q" + ",\n" + item % "good q" + "]}").encode()
    conversion = convert_bytes("api.json", data)
    assert len(conversion.converted) == 1
    [left] = conversion.not_converted
    assert left.reason.startswith("a lone surrogate") and "\ud800" not in left.label
    assert "\n".join(conversion.report_lines()).encode("utf-8")  # printable


# ------------------------------------------------------------------ empty and mislabelled files


@pytest.mark.parametrize("name", ["quiz.xml", "deck.apkg", "quiz.gift"])
def test_an_empty_file_is_called_empty(name: str) -> None:
    assert str(refused(name, b"")) == f"{name}: the file is empty"
    assert str(refused(name, b"\xef\xbb\xbf \n\n")) == f"{name}: the file is empty"


def test_an_apkg_that_is_not_a_zip_says_so() -> None:
    assert str(refused("deck.apkg", b"this is not a zip\n")) == "deck.apkg: not a valid .apkg/.colpkg (zip) file"


# ------------------------------------------------------------------ Anki collections with a hostile schema


def _package(script: str, notes: list[tuple[object, list[str], int]] | None = None) -> bytes:
    connection = sqlite3.connect(":memory:")
    connection.deserialize(schema11(notes if notes is not None else NOTES[:2]))  # type: ignore[arg-type]
    connection.executescript(script)
    connection.commit()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("collection.anki2", connection.serialize())
    return buffer.getvalue()


@pytest.mark.parametrize(
    "script",
    [
        "drop table notes; create view notes as with recursive r(i) as (select 1 union all select i + 1 from r limit 2) "
        f"select i as id, 'g' as guid, {BASIC.id} as mid, hex(randomblob(1000000)) as flds from r;",
        "drop table cards; create view CARDS as select id * 1 as nid, 1 as did from notes;",
        "drop table notes; create table notes (id integer primary key, guid text, mid integer, "
        "flds text as (hex(zeroblob(1000000))) virtual); "
        f"insert into notes (id, guid, mid) values (1, 'g', {BASIC.id});",
    ],
    ids=["view-of-random-blobs", "view-for-cards", "generated-column"],
)
def test_a_collection_that_would_run_its_own_sql_is_refused(script: str) -> None:
    error = refused("deck.apkg", _package(script))
    assert error.message.startswith("the Anki collection cannot be read: `") and "is not a plain table" in error.message


@pytest.mark.parametrize("models", ["not json", "[1, 2]", "[" * 100_000 + "]" * 100_000])
def test_note_types_that_are_not_ankis_json_are_refused(models: str) -> None:
    error = refused("deck.apkg", _package(f"update col set models = '{models}';"))
    assert error.message == "the Anki collection cannot be read: its note types or decks are not Anki's JSON"


def test_a_note_with_fewer_fields_than_its_type_converts() -> None:
    package = _package(f"update notes set flds = 'Only a front' where mid = {BASIC.id};")
    conversion = convert_bytes("deck.apkg", package)
    assert conversion.not_converted or conversion.converted  # read note by note, no KeyError


def test_triggers_and_media_names_do_nothing() -> None:
    package = _package("create table evil (x); create trigger t before delete on cards begin insert into evil values (1); end;")
    buffer = io.BytesIO(package)
    with zipfile.ZipFile(buffer, "a") as archive:
        archive.writestr("media", '{"0": "../../../../tmp/owned", "1": "/etc/cron.d/x"}')
        archive.writestr("0", b"x")
        archive.writestr("../../evil", b"z")
    assert convert_bytes("deck.apkg", buffer.getvalue()).ok
