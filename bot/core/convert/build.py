"""Turn a source file into a pack: pick the format, read it, give ids and topics, check the result.

The pack is checked twice: each item on its own against the pydantic models (an item that fails is
reported, not dropped), then the whole pack through the project's own loader, exactly as
`quizbot pack import` and `/quiz pack load` will read it.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable
from typing import Any

from pydantic import TypeAdapter, ValidationError

from bot.core.errors import PackInvalid
from bot.core.i18n import M_, Said
from bot.core.packs import LoadedPack, load_bytes
from bot.core.packs.explain import problems_from
from bot.core.packs.models import Question
from bot.core.packs.yamlpos import Positions

from . import anki, ankipkg, gift, moodle, opentdb, red, table
from .detect import FORMATS, detect, resolve
from .draft import Draft, Sink
from .result import FORMAT_NAMES, PACK_FILE, Conversion, Converted, ConvertError, NotConverted
from .text import first_words, item_id, pack_id_from, slug, title_from, unique, valid_pack_id
from .yamlout import dump_yaml

MAX_INPUT_BYTES = 5 * 1024 * 1024
"""The largest source file accepted, checked before anything is parsed."""

MAX_PACK_UNPACKED = 8 * 1024 * 1024  # what the pack loader accepts from a .zip

GENERAL_TOPIC = "General"

Reader = Callable[[bytes, Sink], None]
READERS: dict[str, Reader] = {
    "moodle-xml": moodle.read,
    "gift": gift.read,
    "red-trivia": red.read,
    "opentdb": opentdb.read,
    "csv": table.read,
    "anki": anki.read,
    "anki-package": ankipkg.read,
}
assert set(READERS) == set(FORMATS)

_ORDER = ("difficulty", "prompt", "hint", "explanation", "attempts", "points")
_QUESTION: TypeAdapter[Any] = TypeAdapter(Question)
_AT_QUESTION = re.compile(r"questions\[(\d+)\](?: \(id `[^`]*`\))?\.?\s*:?\s*")


def convert_bytes(
    filename: str,
    data: bytes,
    *,
    fmt: str | None = None,
    pack_id: str | None = None,
    title: str | None = None,
    column_map: dict[str, str] | None = None,
) -> Conversion:
    """Convert a quiz file from another tool into a pack, with a report of what happened.

    `fmt` is one of FORMATS (or an alias such as `tsv`); without it the format is detected from the
    content. `column_map` says what a sheet's columns hold (see `columns.parse_map`). Raises
    ConvertError when the file cannot be read at all.
    """
    if len(data) > MAX_INPUT_BYTES:
        raise ConvertError(
            filename, None,
            M_("the file is {size} MiB; the limit is {most} MiB", size=f"{len(data) / 1048576:.1f}", most=MAX_INPUT_BYTES // 1048576),
        )
    if pack_id is not None and not valid_pack_id(pack_id):
        raise ConvertError(filename, None, M_("pack id `{pack_id}`: use 2-40 of a-z, 0-9 and '-', starting and ending with a letter or digit", pack_id=pack_id))
    if title is not None and not 1 <= len(title.strip()) <= 120:
        raise ConvertError(filename, None, M_("the title must be 1 to 120 characters"))
    if fmt is None and column_map:
        fmt = "csv"
    name = resolve(fmt, filename) if fmt is not None else detect(data, filename)
    sink = Sink(filename, column_map=dict(column_map or {}))
    READERS[name](data, sink)  # the sink refuses the file at its first item past MAX_ITEMS
    return _build(sink, name, pack_id or pack_id_from(filename), (title or title_from(filename)).strip())


def _build(sink: Sink, fmt: str, pack_id: str, title: str) -> Conversion:
    drafts = list(sink.drafts)
    if any(d.topic for d in drafts) and not all(d.topic for d in drafts):
        for d in drafts:
            if not d.topic:
                d.topic = GENERAL_TOPIC
                sink.assume(M_("items outside any category go to the topic `{topic}`", topic=GENERAL_TOPIC), d.line)
    topic_ids: dict[str, str] = {}
    taken_topics: set[str] = set()
    for d in drafts:
        if d.topic and d.topic not in topic_ids:
            topic_ids[d.topic] = unique(slug(d.topic) or "topic", taken_topics)

    taken: set[str] = set()
    kept: list[tuple[Draft, dict[str, Any]]] = []
    for d in drafts:
        unstorable = _unstorable([d.fields, d.name, d.topic, d.test])
        if unstorable is not None:
            sink.skip(d.line, d.source_type, _label(d), unstorable)
            continue
        qid = unique(item_id(d.name, d.fields.get("prompt", "")), taken)
        question: dict[str, Any] = {"id": qid, "type": d.fields["type"]}
        if d.topic:
            question["topic"] = topic_ids[d.topic]
        question.update((k, d.fields[k]) for k in _ORDER if k in d.fields)
        question.update((k, v) for k, v in d.fields.items() if k not in question and k != "type")
        if d.test is not None:
            question["test_file"] = f"tests/{qid}.py"
        try:
            _QUESTION.validate_python(question)
        except ValidationError as exc:
            sink.skip(d.line, d.source_type, _label(d), _reason(exc, question))
            continue
        kept.append((d, question))

    loaded: LoadedPack | None = None
    pack: dict[str, Any] = {}
    files: dict[str, str] = {}
    for _ in range(3):
        pack, files = _assemble(sink, fmt, pack_id, title, kept, topic_ids)
        if not kept:
            break
        text = dump_yaml(pack)
        size = len(text.encode()) + sum(len(t.encode()) for t in files.values())
        if size > MAX_PACK_UNPACKED:
            raise ConvertError(
                sink.source,
                None,
                M_(
                    "the pack would be {size} MiB, over the {most} MiB a pack may be: split the file",
                    size=f"{size / 1048576:.1f}", most=MAX_PACK_UNPACKED // 1048576,
                ),
            )
        try:
            loaded = load_bytes(f"{pack_id}.zip", _zip(pack_id, text, files))
            break
        except PackInvalid as exc:
            kept = _drop_refused(sink, kept, exc)
    else:  # pragma: no cover - the item checks above catch what the loader refuses
        raise ConvertError(sink.source, None, M_("the converted pack does not pass the pack loader"))
    converted = tuple(
        Converted(id=q["id"], type=q["type"], line=d.line, source_type=d.source_type) for d, q in kept
    )
    return Conversion(
        source=sink.source,
        format=fmt,
        pack=pack,
        files=files,
        converted=converted,
        not_converted=tuple(sorted(sink.skipped, key=lambda s: s.line)),
        assumptions=sink.assumptions(),
        loaded=loaded,
    )


def _assemble(
    sink: Sink, fmt: str, pack_id: str, title: str, kept: list[tuple[Draft, dict[str, Any]]], topic_ids: dict[str, str]
) -> tuple[dict[str, Any], dict[str, str]]:
    used = {q.get("topic") for _, q in kept}
    description = f"Converted from `{sink.source.replace(chr(92), '/').rsplit('/', 1)[-1]}` ({FORMAT_NAMES[fmt]})."
    if sink.notes:
        description += "\n\n" + "\n\n".join(sink.notes)
    pack: dict[str, Any] = {"pack": pack_id, "title": title, "version": 1, "description": description}
    if sink.authors:
        pack["authors"] = list(sink.authors)
    topics = [{"id": tid, "title": t[:100]} for t, tid in topic_ids.items() if tid in used]
    if topics:
        pack["topics"] = topics
    pack["questions"] = [q for _, q in kept]
    files = {q["test_file"]: d.test for d, q in kept if d.test is not None and "test_file" in q}
    return pack, files


def _zip(pack_id: str, text: str, files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(f"{pack_id}/{PACK_FILE}", text)
        for name, body in files.items():
            archive.writestr(f"{pack_id}/{name}", body)
    return buffer.getvalue()


def _drop_refused(
    sink: Sink, kept: list[tuple[Draft, dict[str, Any]]], exc: PackInvalid
) -> list[tuple[Draft, dict[str, Any]]]:
    refused: dict[int, str] = {}
    for problem in exc.problems:
        match = _AT_QUESTION.search(problem.message)
        if match is None:
            raise ConvertError(sink.source, None, M_("the converted pack does not load: {problem}", problem=problem.message)) from exc
        refused.setdefault(int(match.group(1)), _for_item(problem.message))
    for index, reason in refused.items():
        d, _ = kept[index]
        sink.skip(d.line, d.source_type, _label(d), reason)
    return [pair for i, pair in enumerate(kept) if i not in refused]


def _unstorable(value: object) -> str | None:
    """Say why a text of the item cannot be stored (a NUL, a lone surrogate from a JSON escape); None when all can.

    The pack loader refuses both for the whole pack; here they leave out only the item, with its line.
    """
    texts: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
            texts.extend(k for k in item if isinstance(k, str))
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            texts.append(item)
    for text in texts:
        if "\x00" in text:
            return M_("a NUL character (\\0) in this text; no database stores it")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return M_("a lone surrogate (\\uD800-\\uDFFF) in this text is not valid Unicode")
    return None


def _label(d: Draft) -> str:
    return first_words(d.name or str(d.fields.get("prompt", "")))


def _reason(exc: ValidationError, question: dict[str, Any]) -> str:
    """Say why the pack format refuses the item, in the loader's words (pydantic's English never shows)."""
    said = [p.message for p in problems_from(exc, question, Positions(), "", root=M_("the question"))][:3]
    reason = said[-1]
    for earlier in reversed(said[:-1]):
        reason = M_("{first}; {then}", first=earlier, then=reason)
    return reason


def _for_item(message: str) -> str:
    """Say a loader's problem of one question of the item, without `questions[3] (id ...)` before it."""
    if isinstance(message, Said) and "where" in message.values:
        where = _AT_QUESTION.sub("", str(message.values["where"]), count=1)
        return Said(message.template, **{**message.values, "where": where or M_("the question")})
    return _AT_QUESTION.sub("", message, count=1)


def known_formats() -> str:
    return ", ".join(FORMATS)


__all__ = ["MAX_INPUT_BYTES", "READERS", "NotConverted", "convert_bytes", "known_formats"]
