"""Read an Anki package (`.apkg` from "Export deck", `.colpkg` from "Export collection").

The package is a zip holding the collection as a SQLite database: `collection.anki21b` (zstd-
compressed, Anki 2.1.50 and later), `collection.anki21` or `collection.anki2`. Newer exports also
hold a `collection.anki2` with one note asking to update Anki, so the newest member wins. The
database is decompressed with a size cap and opened in memory, read-only, with a budget on the
work SQLite may do; no file is written. Note types come from `col.models` (JSON, schema 11) or the
`notetypes`, `fields` and `templates` tables (schema 18). Each note's fields are split on 0x1f and
mapped through its first card template: the fields its question shows are the front, the first
other field its answer shows is the back, the rest are the explanation.
"""

from __future__ import annotations

import io
import json
import re
import sqlite3
import zipfile
from dataclasses import dataclass
from typing import Any

import zstandard

from bot.core.i18n import M_

from .anki import note
from .draft import Sink
from .result import ConvertError
from .text import short_hash

MEMBERS = ("collection.anki21b", "collection.anki21", "collection.anki2")
MAX_COLLECTION_BYTES = 64 * 1024 * 1024  # the database once unpacked
MAX_MEMBERS = 100_000  # media files are members too
MAX_NOTES = 20_000
MAX_SQLITE_STEPS = 5_000  # progress callbacks of 10,000 virtual-machine steps each
MAX_VALUE_BYTES = 8 * 1024 * 1024  # the longest text or blob SQLite may make: a pack is at most 8 MiB
_READ = ("col", "notes", "cards", "notetypes", "fields", "templates", "decks")
_FIELD_REF = re.compile(r"\{\{([^{}]+)\}\}")
_SPECIAL = frozenset({"FrontSide", "Tags", "Deck", "Subdeck", "Type", "Card", "CardFlag"})


def is_package(data: bytes) -> bool:
    """Tell whether `data` is a zip holding an Anki collection."""
    if not data.startswith(b"PK\x03\x04"):
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return any(name in MEMBERS for name in archive.namelist()[:MAX_MEMBERS])
    except (zipfile.BadZipFile, ValueError, OSError):
        return False


@dataclass(frozen=True)
class NoteType:
    name: str
    cloze: bool
    fields: list[str]
    question: str  # the first card template's question and answer formats
    answer: str


def read(data: bytes, sink: Sink) -> None:
    """Read every note of an Anki package into `sink`."""
    database = _collection(data, sink.source)
    connection = sqlite3.connect(":memory:")
    try:
        steps = [0]

        def budget() -> int:
            steps[0] += 1
            return 1 if steps[0] > MAX_SQLITE_STEPS else 0

        connection.set_progress_handler(budget, 10_000)
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)  # one step of randomblob() is not small
        try:
            connection.deserialize(database)
            connection.execute("PRAGMA query_only = ON")
            connection.execute("PRAGMA trusted_schema = OFF")
            _plain_tables(connection, sink.source)
            types, decks = _note_types(connection)
            _notes(connection, types, decks, sink)
        except sqlite3.Error as exc:
            why = "it is too large to read" if steps[0] > MAX_SQLITE_STEPS else str(exc)
            raise ConvertError(sink.source, None, M_("the Anki collection cannot be read: {why}", why=why)) from exc
        except (ValueError, TypeError, AttributeError, RecursionError) as exc:  # col.models or col.decks is not Anki's JSON
            raise ConvertError(sink.source, None, M_("the Anki collection cannot be read: {why}", why=M_("its note types or decks are not Anki's JSON"))) from exc
    finally:
        connection.close()
    sink.assume(M_("Anki scheduling, tags and media are not carried"))


def _collection(data: bytes, source: str) -> bytes:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise ConvertError(source, None, M_("not a valid .apkg/.colpkg (zip) file")) from exc
    if len(infos) > MAX_MEMBERS:
        raise ConvertError(source, None, M_("the package holds more than {most} files", most=MAX_MEMBERS))
    by_name = {info.filename: info for info in infos}
    name = next((n for n in MEMBERS if n in by_name), None)
    if name is None:
        raise ConvertError(source, None, M_("the package holds no Anki collection (collection.anki2/.anki21/.anki21b)"))
    info = by_name[name]
    if info.flag_bits & 0x1 or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise ConvertError(source, None, M_("{name} is encrypted or packed with an unusual method", name=name))
    try:
        with archive.open(info) as stream:
            raw = stream.read(MAX_COLLECTION_BYTES + 1)
        if name.endswith("b"):
            with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw)) as unzstd:
                raw = unzstd.read(MAX_COLLECTION_BYTES + 1)
    except (zipfile.BadZipFile, zstandard.ZstdError, OSError, EOFError, ValueError) as exc:
        raise ConvertError(source, None, M_("{name} cannot be unpacked: {detail}", name=name, detail=exc)) from exc
    if len(raw) > MAX_COLLECTION_BYTES:
        raise ConvertError(source, None, M_("the collection is larger than {size} unpacked", size=f"{MAX_COLLECTION_BYTES // 1048576} MiB"))
    if not raw.startswith(b"SQLite format 3\x00"):
        raise ConvertError(source, None, M_("{name} is not an SQLite database", name=name))
    return raw


def _plain_tables(connection: sqlite3.Connection, source: str) -> None:
    """Refuse a collection whose tables read are views, virtual tables or have computed columns.

    Anki writes plain tables. A view or a generated column runs the file's own SQL on every read
    (a recursive query, `randomblob()` per row): only stored values may be read.
    """
    for name, kind, sql in connection.execute("SELECT name, type, sql FROM sqlite_master"):
        if str(name).lower() not in _READ:  # SQLite's names ignore case: `NOTES` is `notes`
            continue
        plain = kind == "table" and not str(sql or "").lstrip().lower().startswith("create virtual")
        if not plain or any(row[6] in (2, 3) for row in connection.execute(f"PRAGMA table_xinfo({name})")):
            why = M_("`{name}` is not a plain table, as Anki writes it", name=name)
            raise ConvertError(source, None, M_("the Anki collection cannot be read: {why}", why=why))


def _tables(connection: sqlite3.Connection) -> set[str]:
    return {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _note_types(connection: sqlite3.Connection) -> tuple[dict[int, NoteType], dict[int, str]]:
    if "notetypes" in _tables(connection):  # schema 18
        types: dict[int, NoteType] = {}
        for ntid, name, config in connection.execute("SELECT id, name, config FROM notetypes"):
            fields = [r[0] for r in connection.execute("SELECT name FROM fields WHERE ntid = ? ORDER BY ord", (ntid,))]
            template = connection.execute("SELECT config FROM templates WHERE ntid = ? ORDER BY ord LIMIT 1", (ntid,)).fetchone()
            parts = _proto(template[0]) if template else {}
            kind = _proto(config).get(1, 0)
            types[int(ntid)] = NoteType(str(name), kind == 1, fields, _text(parts.get(1)), _text(parts.get(2)))
        decks = {int(i): str(n).split("\x1f")[-1] for i, n in connection.execute("SELECT id, name FROM decks")}
        return types, decks
    row = connection.execute("SELECT models, decks FROM col").fetchone()
    if row is None:
        raise sqlite3.DatabaseError("the col table is empty")
    models: dict[str, Any] = json.loads(row[0])
    decks_json: dict[str, Any] = json.loads(row[1])
    if not isinstance(models, dict) or not isinstance(decks_json, dict):
        raise TypeError("col.models and col.decks are JSON objects")
    types = {}
    for mid, model in models.items():
        flds = sorted(model.get("flds", []), key=lambda f: f.get("ord", 0))
        tmpls = sorted(model.get("tmpls", []), key=lambda t: t.get("ord", 0))
        first = tmpls[0] if tmpls else {}
        types[int(mid)] = NoteType(
            str(model.get("name", "")), model.get("type") == 1, [str(f.get("name", "")) for f in flds],
            str(first.get("qfmt", "")), str(first.get("afmt", "")),
        )
    decks = {int(i): str(d.get("name", "")).split("::")[-1] for i, d in decks_json.items()}
    return types, decks


def _notes(connection: sqlite3.Connection, types: dict[int, NoteType], decks: dict[int, str], sink: Sink) -> None:
    deck_of = dict(connection.execute("SELECT nid, MIN(did) FROM cards GROUP BY nid"))
    query = "SELECT id, guid, mid, flds FROM notes ORDER BY id LIMIT ?"
    for number, (nid, guid, mid, flds) in enumerate(connection.execute(query, (MAX_NOTES + 1,)), start=1):
        if number > MAX_NOTES:
            raise ConvertError(sink.source, None, M_("the collection holds more than {most} notes: export one deck", most=MAX_NOTES))
        kind = types.get(int(mid))
        values = str(flds).split("\x1f")
        if kind is None:
            sink.skip(number, "note", values[0][:60], M_("its note type is missing from the collection"))
            continue
        draft = note(_ordered(kind, values), kind.cloze, "true", number, sink)
        if draft is None:
            continue
        draft.source_type = f"note ({kind.name})" if not kind.cloze else "cloze"
        draft.name = f"anki-{short_hash(str(guid), 10)}"
        deck = decks.get(int(deck_of.get(nid, 0)), "")
        draft.topic = deck or None
        sink.add(draft)
    sink.notes.append("Notes are numbered in the order Anki created them; the report's line numbers are those numbers.")


def _ordered(kind: NoteType, values: list[str]) -> list[str]:
    """Return the note's fields as front, back, then the others, following its first card template."""
    by_name = dict(zip(kind.fields, values, strict=False))
    shown_q = [n for n in _refs(kind.question, typed=False) if n in by_name]
    shown_a = [n for n in _refs(kind.answer) if n in by_name and n not in shown_q]
    if not shown_q:
        return values
    front = "<br>".join(by_name[n] for n in shown_q if by_name[n].strip())
    rest = [n for n in kind.fields if n not in shown_q and n not in shown_a and n in by_name]  # a note may hold fewer fields
    if kind.cloze:
        return [front, *(by_name[n] for n in shown_a + rest)]
    back = [by_name[n] for n in shown_a]
    return [front, *(back or [""]), *(by_name[n] for n in rest if by_name[n].strip())]


def _refs(template: str, *, typed: bool = True) -> list[str]:
    """Return the field names a card template shows, in order (`{{cloze:Text}}` too).

    `{{type:Back}}` on the question side is the box the answer is typed in: `typed=False` leaves it out.
    """
    names: list[str] = []
    for match in _FIELD_REF.finditer(template):
        ref = match.group(1).strip()
        if ref.startswith(("#", "^", "/")) or (not typed and ref.startswith("type:")):
            continue
        name = ref.rsplit(":", 1)[-1].strip()
        if name not in _SPECIAL and name not in names:
            names.append(name)
    return names


def _proto(blob: Any) -> dict[int, Any]:
    """Read the top-level varint and length-delimited fields of a protobuf message (Anki's configs)."""
    data = bytes(blob or b"")
    out: dict[int, Any] = {}
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _varint(data, at)
            out.setdefault(number, value)
        elif wire == 2:
            size, at = _varint(data, at)
            out.setdefault(number, data[at : at + size])
            at += size
        elif wire == 5:
            at += 4
        elif wire == 1:
            at += 8
        else:
            break
    return out


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while at < len(data) and shift < 64:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    return value, at


def _text(value: Any) -> str:
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else ""
