"""Build Anki packages the way Anki writes them, for the converter tests.

`.apkg` of Anki 2.1 before 2.1.50: a zip with `collection.anki2` (SQLite, schema 11: note types and
decks as JSON in `col`) and a `media` JSON map. Anki 2.1.50 and later: `collection.anki21b`
(zstd-compressed SQLite, schema 18: `notetypes`, `fields`, `templates`, `decks` tables, configs as
protobuf), a `collection.anki2` holding one note asking to update Anki, `media` and `meta`.
"""

from __future__ import annotations

import io
import json
import sqlite3
import zipfile
from dataclasses import dataclass

import zstandard

_SCHEMA11 = """
create table col (id integer primary key, crt integer not null, mod integer not null, scm integer not null,
  ver integer not null, dty integer not null, usn integer not null, ls integer not null, conf text not null,
  models text not null, decks text not null, dconf text not null, tags text not null);
create table notes (id integer primary key, guid text not null, mid integer not null, mod integer not null,
  usn integer not null, tags text not null, flds text not null, sfld integer not null, csum integer not null,
  flags integer not null, data text not null);
create table cards (id integer primary key, nid integer not null, did integer not null, ord integer not null,
  mod integer not null, usn integer not null, type integer not null, queue integer not null, due integer not null,
  ivl integer not null, factor integer not null, reps integer not null, lapses integer not null, left integer not null,
  odue integer not null, odid integer not null, flags integer not null, data text not null);
create table revlog (id integer primary key, cid integer not null, usn integer not null, ease integer not null,
  ivl integer not null, lastIvl integer not null, factor integer not null, time integer not null, type integer not null);
create table graves (usn integer not null, oid integer not null, type integer not null);
"""
_SCHEMA18 = """
create table notetypes (id integer not null primary key, name text not null, mtime_secs integer not null,
  usn integer not null, config blob not null);
create table fields (ntid integer not null, ord integer not null, name text not null, config blob not null,
  primary key (ntid, ord)) without rowid;
create table templates (ntid integer not null, ord integer not null, name text not null, mtime_secs integer not null,
  usn integer not null, config blob not null, primary key (ntid, ord)) without rowid;
create table decks (id integer primary key not null, name text not null, mtime_secs integer not null,
  usn integer not null, common blob not null, kind blob not null);
"""


@dataclass(frozen=True)
class Model:
    id: int
    name: str
    fields: tuple[str, ...]
    templates: tuple[tuple[str, str], ...]  # (question format, answer format)
    cloze: bool = False


BASIC = Model(1342697561419, "Basic", ("Front", "Back"), (("{{Front}}", "{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}"),))
TYPED = Model(
    1342697561420, "Basic (type in the answer)", ("Front", "Back"),
    (("{{Front}}\n\n{{type:Back}}", "{{Front}}\n\n<hr id=answer>\n\n{{type:Back}}"),),
)
REVERSED = Model(
    1342697561421, "Basic (and reversed card)", ("Front", "Back"),
    (("{{Front}}", "{{FrontSide}}<hr id=answer>{{Back}}"), ("{{Back}}", "{{FrontSide}}<hr id=answer>{{Front}}")),
)
CLOZE = Model(
    1342697561422, "Cloze", ("Text", "Back Extra"), (("{{cloze:Text}}", "{{cloze:Text}}<br>\n{{Back Extra}}"),), cloze=True
)
MODELS = (BASIC, TYPED, REVERSED, CLOZE)
DECKS = {1: "Default", 1700000000001: "PyTorch::Tensors", 1700000000002: "PyTorch::Autograd"}


def _schema11_models() -> str:
    out = {}
    for m in MODELS:
        out[str(m.id)] = {
            "id": m.id, "name": m.name, "type": 1 if m.cloze else 0, "mod": 0, "usn": 0, "sortf": 0, "did": 1,
            "flds": [{"name": f, "ord": i, "sticky": False, "rtl": False, "font": "Arial", "size": 20} for i, f in enumerate(m.fields)],
            "tmpls": [{"name": f"Card {i + 1}", "ord": i, "qfmt": q, "afmt": a, "did": None, "bqfmt": "", "bafmt": ""}
                      for i, (q, a) in enumerate(m.templates)],
            "css": ".card { font-family: arial; }", "latexPre": "", "latexPost": "", "req": [[0, "any", [0]]],
        }  # fmt: skip
    return json.dumps(out)


def _database(script: str) -> sqlite3.Connection:
    connection = sqlite3.connect(":memory:")
    connection.executescript(script)
    return connection


def _add_notes(connection: sqlite3.Connection, notes: list[tuple[Model, list[str], int]]) -> None:
    for n, (model, fields, deck) in enumerate(notes, start=1):
        nid = 1700000000000 + n
        connection.execute(
            "insert into notes values (?, ?, ?, 0, -1, '', ?, ?, 0, 0, '')",
            (nid, f"g{n}`x+/{n}", model.id, "\x1f".join(fields), fields[0]),
        )
        for ord_ in range(len(model.templates)):
            connection.execute(
                "insert into cards values (?, ?, ?, ?, 0, -1, 0, 0, ?, 0, 0, 0, 0, 0, 0, 0, 0, '')",
                (nid * 10 + ord_, nid, deck, ord_, n),
            )


def schema11(notes: list[tuple[Model, list[str], int]]) -> bytes:
    """Return a `collection.anki2` database holding `notes` as (note type, fields, deck id)."""
    connection = _database(_SCHEMA11)
    decks = {str(i): {"id": i, "name": name, "conf": 1, "dyn": 0} for i, name in DECKS.items()}
    connection.execute(
        "insert into col values (1, 1700000000, 0, 0, 11, 0, 0, 0, '{}', ?, ?, '{}', '{}')",
        (_schema11_models(), json.dumps(decks)),
    )
    _add_notes(connection, notes)
    connection.commit()
    return connection.serialize()


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _string(number: int, text: str) -> bytes:
    data = text.encode()
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def schema18(notes: list[tuple[Model, list[str], int]]) -> bytes:
    """Return a `collection.anki21b` database (before compression) holding `notes`."""
    connection = _database(_SCHEMA11.replace("create table col", "create table col", 1) + _SCHEMA18)
    connection.execute("insert into col values (1, 1700000000, 0, 0, 18, 0, 0, 0, '', '', '', '', '')")
    for m in MODELS:
        kind = (_varint(1 << 3 | 0) + _varint(1)) if m.cloze else b""  # proto3 leaves the default (normal) out
        connection.execute("insert into notetypes values (?, ?, 0, 0, ?)", (m.id, m.name, kind + _string(3, ".card {}")))
        for i, f in enumerate(m.fields):
            connection.execute("insert into fields values (?, ?, ?, ?)", (m.id, i, f, _string(2, "Arial")))
        for i, (q, a) in enumerate(m.templates):
            connection.execute(
                "insert into templates values (?, ?, ?, 0, 0, ?)", (m.id, i, f"Card {i + 1}", _string(1, q) + _string(2, a))
            )
    for i, name in DECKS.items():
        connection.execute("insert into decks values (?, ?, 0, 0, x'', x'')", (i, name.replace("::", "\x1f")))
    _add_notes(connection, notes)
    connection.commit()
    return connection.serialize()


def apkg(notes: list[tuple[Model, list[str], int]], *, modern: bool = False) -> bytes:
    """Return an `.apkg` as Anki's "Export deck" writes it (modern: Anki 2.1.50 and later)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        if modern:
            update = [(BASIC, ["Please update to the latest Anki version, then import the .colpkg/.apkg file again.", ""], 1)]
            archive.writestr("collection.anki2", schema11(update))
            archive.writestr("collection.anki21b", zstandard.ZstdCompressor().compress(schema18(notes)))
            archive.writestr("media", zstandard.ZstdCompressor().compress(b""))
            archive.writestr("meta", b"\x08\x03")
        else:
            archive.writestr("collection.anki2", schema11(notes))
            archive.writestr("media", json.dumps({"0": "paris.jpg"}))
            archive.writestr("0", b"\xff\xd8\xff\xe0 not really a picture")
    return buffer.getvalue()


TENSORS, AUTOGRAD = 1700000000001, 1700000000002
LONG_BACK = (
    "Autograd records every operation on tensors that require gradients in a graph, and backward() walks "
    "that graph from the output to the leaves."
)
NOTES: list[tuple[Model, list[str], int]] = [
    (BASIC, ["What does <code>torch.zeros(2,&nbsp;3)</code> return?", "a 2x3 tensor of <b>zeros</b>"], TENSORS),
    (TYPED, ["Which method turns a one-element tensor into a Python number?", "item"], TENSORS),
    (CLOZE, ["Calling {{c1::backward()}} fills the <i>.grad</i> of every leaf.", "See the autograd notes."], AUTOGRAD),
    (BASIC, ['<img src="paris.jpg" alt="Eiffel Tower in Paris">', "Paris"], 1),
    (BASIC, ["What does autograd do?", LONG_BACK], AUTOGRAD),
    (BASIC, ["How is <i>der Hund</i> pronounced?", "[sound:hund.mp3]"], 1),
    (REVERSED, ["dtype of <code>torch.tensor([1, 2])</code>", "torch.int64"], TENSORS),
]
