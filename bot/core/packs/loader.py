"""Read a pack from a folder, a single .yaml file, a .zip or uploaded bytes, and check it.

Every problem found becomes a `Problem` with the file, line and column of the field at fault;
`PackInvalid` carries all of them. Files a pack names (`test_file`, `solution_file`) are read and
inlined, so a loaded pack is self-contained.

Every read has a budget, enforced while reading and never taken from what a file or a zip header
claims: MAX_PACK_BYTES for the pack file (or the uploaded .yaml/.zip), MAX_FILE_BYTES for each file
it names, MAX_TOTAL_BYTES for everything one pack reads. The YAML parse has its own budget (see
`yamlpos`).
"""

from __future__ import annotations

import difflib
import io
import lzma
import posixpath
import re
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import IO, Any

from pydantic import BaseModel, ValidationError

from bot.core.errors import PackInvalid, Problem

from . import yamlpos
from .models import (
    BlanksQuestion,
    Choice,
    ChoiceQuestion,
    CodeQuestion,
    Limits,
    NumberSpec,
    Pack,
    ShortQuestion,
    Topic,
)

MAX_PACK_BYTES = 2 * 1024 * 1024  # an uploaded .yaml or .zip, and the pack.yaml in a folder or zip
MAX_FILE_BYTES = 256 * 1024  # each test_file and solution_file
MAX_TOTAL_BYTES = 8 * 1024 * 1024  # everything one pack reads, files named twice counted twice
MAX_ZIP_MEMBERS = 500
MAX_PROBLEMS = 100  # problems listed for one pack; the rest are counted
PACK_FILE = "pack.yaml"
_CHUNK = 64 * 1024

Reader = Callable[[str], str | None]  # the text of a file beside the pack, None when there is none


class FileProblem(Exception):
    """A file beside the pack exists but cannot be used (too large, not UTF-8, a damaged zip member)."""


@dataclass
class _Budget:
    """Bytes one pack may still read."""

    left: int = MAX_TOTAL_BYTES

    def take(self, size: int) -> None:
        self.left -= size
        if self.left < 0:
            raise FileProblem(f"takes the pack over {_size(MAX_TOTAL_BYTES)} read in all")


def _read_capped(stream: IO[bytes], cap: int) -> bytes:
    """Read at most `cap` bytes; a stream that holds more is refused without reading the rest."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = stream.read(min(_CHUNK, cap + 1 - size))
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > cap:
            raise FileProblem(f"is larger than {_size(cap)}")
        chunks.append(chunk)


def _size(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB" if n >= 1024 * 1024 else f"{n // 1024} KiB"


@dataclass(frozen=True)
class LoadedPack:
    pack: Pack
    source: str  # where it came from, for messages
    lines: dict[str, tuple[int, int]] = field(default_factory=dict)  # question id -> line, col

    def problem(self, question_id: str, message: str) -> Problem:
        line, col = self.lines.get(question_id, (1, 1))
        return Problem(self.source, line, col, message)


def load_path(path: FsPath) -> LoadedPack:
    """Load a pack folder, a pack .yaml file or a .zip from disk."""
    if path.is_dir():
        main = path / PACK_FILE
        if not main.is_file():
            raise PackInvalid([Problem(str(path), 1, 1, f"no {PACK_FILE} in this folder")])
        budget = _Budget()
        return _load_text(_read_file(main, budget), str(main), _folder_reader(path, budget))
    if not path.is_file():
        raise PackInvalid([Problem(str(path), 1, 1, "no such file or folder")])
    try:
        with path.open("rb") as stream:
            data = _read_capped(stream, MAX_PACK_BYTES)
    except FileProblem as exc:
        raise PackInvalid([Problem(str(path), 1, 1, f"the file {exc}")]) from None
    except OSError as exc:
        raise PackInvalid([Problem(str(path), 1, 1, f"cannot be read ({exc.strerror or exc})")]) from None
    return load_bytes(path.name, data, display=str(path), base=path.parent)


def load_bytes(filename: str, data: bytes, *, display: str | None = None, base: FsPath | None = None) -> LoadedPack:
    """Load an uploaded .yaml/.yml or .zip file."""
    shown = display or filename
    if len(data) > MAX_PACK_BYTES:
        raise PackInvalid([Problem(shown, 1, 1, f"the file is larger than {_size(MAX_PACK_BYTES)}")])
    lower = filename.lower()
    budget = _Budget()
    if lower.endswith(".zip"):
        return _load_zip(shown, data, budget)
    if lower.endswith((".yaml", ".yml")):
        budget.take(len(data))
        text = _decode(data, shown)
        reader = _folder_reader(base, budget) if base is not None else _no_files
        return _load_text(text, shown, reader)
    raise PackInvalid([Problem(shown, 1, 1, "a pack is a .yaml or .yml file, a folder, or a .zip of a folder")])


def _utf8(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FileProblem(f"is not UTF-8 text (byte {exc.start}, line {line})") from None


def _decode(data: bytes, shown: str) -> str:
    try:
        return _utf8(data)
    except FileProblem as exc:
        raise PackInvalid([Problem(shown, 1, 1, f"the file {exc}")]) from None


def _read_file(path: FsPath, budget: _Budget) -> str:
    try:
        with path.open("rb") as stream:
            data = _read_capped(stream, MAX_PACK_BYTES)
        budget.take(len(data))
    except FileProblem as exc:
        raise PackInvalid([Problem(str(path), 1, 1, f"the file {exc}")]) from None
    except OSError as exc:
        raise PackInvalid([Problem(str(path), 1, 1, f"cannot be read ({exc.strerror or exc})")]) from None
    return _decode(data, str(path))


def _no_files(name: str) -> str | None:
    return None


def _folder_reader(root: FsPath, budget: _Budget) -> Reader:
    base = root.resolve()

    def read(name: str) -> str | None:
        try:
            target = (base / name).resolve()
            if not target.is_relative_to(base) or not target.is_file():
                return None
            with target.open("rb") as stream:
                data = _read_capped(stream, MAX_FILE_BYTES)
        except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
            raise FileProblem(f"cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
        budget.take(len(data))
        return _utf8(data)

    return read


# What reading a damaged or unusual zip member can raise: a bad CRC or header (BadZipFile), a
# password (RuntimeError), an unknown compression method (NotImplementedError), a corrupt stream.
_ZIP_ERRORS = (zipfile.BadZipFile, RuntimeError, NotImplementedError, zlib.error, lzma.LZMAError, EOFError, OSError, ValueError)


def _read_member(archive: zipfile.ZipFile, member: zipfile.ZipInfo, cap: int) -> bytes:
    """Read one member by decompressing at most `cap` bytes; its header's sizes are not trusted."""
    if member.flag_bits & 0x1:
        raise FileProblem("is encrypted; zip the pack without a password")
    if member.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise FileProblem(f"uses compression method {member.compress_type}; use the standard one (deflate)")
    try:
        with archive.open(member) as stream:
            return _read_capped(stream, cap)
    except FileProblem:
        raise
    except _ZIP_ERRORS as exc:
        reason = "its checksum does not match (a damaged .zip)" if "CRC" in str(exc) else str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise FileProblem(f"cannot be unpacked: {reason}") from None


def _load_zip(shown: str, data: bytes, budget: _Budget) -> LoadedPack:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = [m for m in archive.infolist() if not m.is_dir()]
    except _ZIP_ERRORS as exc:
        raise PackInvalid([Problem(shown, 1, 1, "not a valid .zip file")]) from exc
    if len(members) > MAX_ZIP_MEMBERS:
        raise PackInvalid([Problem(shown, 1, 1, f"the .zip holds more than {MAX_ZIP_MEMBERS} files")])
    names = {posixpath.normpath(m.filename): m for m in members}
    mains = sorted((n for n in names if posixpath.basename(n) == PACK_FILE), key=lambda n: n.count("/"))
    if not mains:
        raise PackInvalid([Problem(shown, 1, 1, f"the .zip holds no {PACK_FILE}")])
    main = mains[0]
    root = posixpath.dirname(main)

    def read(name: str) -> str | None:
        full = posixpath.normpath(posixpath.join(root, name))
        if full.startswith(("../", "/")) or full not in names:
            return None
        content = _read_member(archive, names[full], MAX_FILE_BYTES)
        budget.take(len(content))
        return _utf8(content)

    try:
        raw = _read_member(archive, names[main], MAX_PACK_BYTES)
        budget.take(len(raw))
    except FileProblem as exc:
        raise PackInvalid([Problem(f"{shown}/{main}", 1, 1, f"the file {exc}")]) from None
    text = _decode(raw, f"{shown}/{main}")
    return _load_text(text, f"{shown}/{main}", read)


def _load_text(text: str, shown: str, read: Reader) -> LoadedPack:
    try:
        data, positions = yamlpos.parse(text)
    except yamlpos.YamlProblem as exc:
        raise PackInvalid([Problem(shown, exc.line, exc.col, exc.message)]) from None
    if not isinstance(data, dict):
        raise PackInvalid([Problem(shown, 1, 1, "a pack must be a mapping with `pack`, `title`, `version` and `questions`")])
    try:
        pack = Pack.model_validate(data)
    except ValidationError as exc:
        raise PackInvalid(_capped(_problems_from(exc, data, positions, shown))) from None
    problems = _cross_check(pack, positions, shown)
    pack, file_problems = _inline_files(pack, positions, shown, read)
    problems.extend(file_problems)
    if problems:
        raise PackInvalid(_capped(sorted(problems, key=lambda p: (p.line, p.col))))
    lines = {q.id: positions.value(("questions", i)) for i, q in enumerate(pack.questions)}
    return LoadedPack(pack=pack, source=shown, lines=lines)


def _capped(problems: list[Problem]) -> list[Problem]:
    if len(problems) <= MAX_PROBLEMS:
        return problems
    last = problems[MAX_PROBLEMS - 1]
    more = len(problems) - MAX_PROBLEMS + 1
    return [*problems[: MAX_PROBLEMS - 1], Problem(last.file, last.line, last.col, f"... and {more} more problems")]


def describe(path: tuple[str | int, ...], data: Any) -> str:
    """Name a field for people: questions[3] (id `grad-flag`).choices[1].text."""
    out = ""
    node = data
    for i, part in enumerate(path):
        if isinstance(part, int):
            out += f"[{part}]"
            if i == 1 and path[0] == "questions" and isinstance(node, list) and part < len(node):
                qid = node[part].get("id") if isinstance(node[part], dict) else None
                if qid:
                    out += f" (id `{qid}`)"
        else:
            out += f".{part}" if out else str(part)
        node = node[part] if _has(node, part) else None
    return out or "pack"


def _has(node: Any, part: str | int) -> bool:
    if isinstance(node, dict):
        return part in node
    return isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)


def _problems_from(exc: ValidationError, data: Any, positions: yamlpos.Positions, shown: str) -> list[Problem]:
    located: list[tuple[tuple[str | int, ...], Any]] = []
    for error in exc.errors():
        # Follow pydantic's location through the data; parts that are not in the data are
        # union tags (the question type), which people never wrote.
        path: tuple[str | int, ...] = ()
        node: Any = data
        for part in error["loc"]:
            if _has(node, part):
                path = (*path, part)
                node = node[part]
            elif isinstance(node, dict) and isinstance(part, str) and part.isdigit() and int(part) in node:
                path = (*path, int(part))
                node = node[int(part)]
        located.append((path, error))
    # A misspelt key first, with the field it was meant to be; that field's "missing" folds into it.
    meant: set[tuple[tuple[str | int, ...], str]] = set()
    for path, error in located:
        if error["type"] == "extra_forbidden" and path:
            guess = _did_you_mean(path, data)
            if guess:
                meant.add((path[:-1], guess))
    problems: list[Problem] = []
    seen: set[tuple[int, int, str]] = set()
    for path, error in located:
        kind = error["type"]
        if kind == "missing" and (path, str(error["loc"][-1])) in meant:
            continue
        line, col, message = _explain_error(path, error, data, positions)
        key = (line, col, message)
        if key not in seen:
            seen.add(key)
            problems.append(Problem(shown, line, col, message))
    return sorted(problems, key=lambda p: (p.line, p.col))


def _fields_at(path: tuple[str | int, ...], data: Any) -> list[str]:
    """The keys allowed in the mapping at `path`, when the format defines that mapping."""
    model: type[BaseModel] | None = None
    if path == ():
        model = Pack
    elif path[0] == "topics" and len(path) == 2:
        model = Topic
    elif path[0] == "questions" and len(path) >= 2:
        question = data["questions"][path[1]] if _has(data.get("questions"), path[1]) else None
        kind = question.get("type") if isinstance(question, dict) else None
        if len(path) == 2:
            model = _QUESTION_TYPES.get(kind) if isinstance(kind, str) else None
        elif len(path) == 4 and path[2] == "choices":
            model = Choice
        elif len(path) == 3:
            model = _PARTS.get(str(path[2]))
    return list(model.model_fields) if model is not None else []


def _did_you_mean(path: tuple[str | int, ...], data: Any) -> str | None:
    fields = _fields_at(path[:-1], data)
    parent: Any = data
    for part in path[:-1]:
        parent = parent[part]
    unused = [f for f in fields if not (isinstance(parent, dict) and f in parent)]
    matches = difflib.get_close_matches(str(path[-1]), unused, n=1, cutoff=0.6)
    return matches[0] if matches else None


def _explain_error(
    path: tuple[str | int, ...], error: Any, data: Any, positions: yamlpos.Positions
) -> tuple[int, int, str]:
    """Locate one validation error and say it in a pack author's words."""
    kind: str = error["type"]
    ctx: dict[str, Any] = error.get("ctx") or {}
    value = error.get("input")
    where = describe(path, data)
    shown = _short(value)
    if kind == "missing":
        line, col = positions.value(path)
        return line, col, f"{where}: missing required field `{error['loc'][-1]}`"
    if kind == "extra_forbidden":
        line, col = positions.key(path)
        parent = describe(path[:-1], data) + ": " if path[:-1] else ""
        guess = _did_you_mean(path, data)
        if guess:
            return line, col, f"{parent}unknown key `{path[-1]}`: did you mean `{guess}`?"
        allowed = ", ".join(_fields_at(path[:-1], data))
        return line, col, f"{parent}unknown key `{path[-1]}`" + (f" (allowed here: {allowed})" if allowed else "")
    line, col = positions.value(path)
    if kind == "union_tag_invalid":
        line, col = positions.value((*path, "type"))
        return line, col, f"{where}.type: `{_short(_get(data, (*path, 'type')))}` is not one of choice, blanks, short, code"
    if kind == "union_tag_not_found":
        return line, col, f"{where}: missing required field `type` (choice, blanks, short or code)"
    if kind in ("bool_type", "bool_parsing"):
        return line, col, f"{where}: write `true` or `false` (YAML's yes/no/on/off are read as text here)"
    if kind == "literal_error":
        allowed = ", ".join(re.findall(r"'([^']*)'", str(ctx.get("expected", ""))))
        return line, col, f"{where}: `{shown}` is not one of {allowed}"
    if kind == "string_too_long":
        return line, col, f"{where}: {len(value)} characters, at most {ctx.get('max_length')} allowed"
    if kind == "string_too_short":
        return line, col, f"{where}: must not be empty"
    if kind == "string_pattern_mismatch":
        return line, col, f"{where}: `{shown}` is not a valid {_PATTERN_WORDS.get(str(path[-1]) if path else '', 'value')}"
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return line, col, f"{where}: `{shown}` is not a whole number"
    if kind in ("float_parsing", "float_type"):
        return line, col, f"{where}: `{shown}` is not a number"
    if kind == "finite_number":
        return line, col, f"{where}: must be a finite number"
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        bound = {"greater_than": "more than", "greater_than_equal": "at least", "less_than": "less than", "less_than_equal": "at most"}[kind]
        limit = next(iter(ctx.values()), "?")
        return line, col, f"{where}: `{shown}` is out of range (must be {bound} {limit})"
    if kind in ("too_short", "too_long"):
        bound = "at least" if kind == "too_short" else "at most"
        limit = ctx.get("min_length" if kind == "too_short" else "max_length", "?")
        return line, col, f"{where}: {bound} {limit} entries (found {ctx.get('actual_length', '?')})"
    if kind in ("string_type", "list_type", "dict_type", "model_type", "model_attributes_type"):
        wanted = {"string_type": "text", "list_type": "a list", "dict_type": "a mapping"}.get(kind, "a mapping of keys and values")
        return line, col, f"{where}: should be {wanted}, not `{shown}`"
    return line, col, f"{where}: {error['msg']}"


_QUESTION_TYPES: dict[str, type[BaseModel]] = {
    "choice": ChoiceQuestion, "blanks": BlanksQuestion, "short": ShortQuestion, "code": CodeQuestion,
}
_PARTS: dict[str, type[BaseModel]] = {"limits": Limits, "number": NumberSpec}
_PATTERN_WORDS = {
    "pack": "pack id: 2-40 of a-z, 0-9 and '-', starting and ending with a letter or digit",
    "id": "id: up to 64 of A-Z, a-z, 0-9, '_', '.' and '-', starting with a letter or digit",
}


def _get(data: Any, path: tuple[str | int, ...]) -> Any:
    node = data
    for part in path:
        if not _has(node, part):
            return None
        node = node[part]
    return node


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _cross_check(pack: Pack, pos: yamlpos.Positions, shown: str) -> list[Problem]:
    from bot.core.items import kind_of  # the type modules read pack models: import them late, no cycle

    problems: list[Problem] = []

    def add(path: tuple[str | int, ...], message: str) -> None:
        line, col = pos.key(path)  # the field's name: where an author looks first
        problems.append(Problem(shown, line, col, message))

    topic_ids = [t.id for t in pack.topics]
    for i, topic in enumerate(pack.topics):
        if topic.id in topic_ids[:i]:
            add(("topics", i, "id"), f"topics[{i}].id: `{topic.id}` is listed twice")
    seen: dict[str, int] = {}
    for i, q in enumerate(pack.questions):
        where = f"questions[{i}] (id `{q.id}`)"
        base: tuple[str | int, ...] = ("questions", i)
        if q.id in seen:
            add((*base, "id"), f"{where}.id: duplicate id, first used by questions[{seen[q.id]}]")
        seen.setdefault(q.id, i)
        if topic_ids and q.topic is not None and q.topic not in topic_ids:
            add((*base, "topic"), f"{where}.topic: `{q.topic}` is not in the pack's topics ({', '.join(topic_ids)})")
        if topic_ids and q.topic is None:
            add(base, f"{where}: missing `topic` (this pack lists topics, so every question needs one)")
        kind_of(q).check(q, _adder(add, base, where))
    return problems


def _adder(
    add: Callable[[tuple[str | int, ...], str], None], base: tuple[str | int, ...], where: str
) -> Callable[[tuple[str | int, ...], str], None]:
    """Let a type module report a problem at a path below its question, named as the loader names it."""

    def item_add(path: tuple[str | int, ...], message: str) -> None:
        label = where
        previous: str | int | None = None
        for step in path:
            label += f".{step}" if isinstance(step, str) or previous == "answers" else f"[{step}]"
            previous = step
        add((*base, *path), f"{label}: {message}")

    return item_add


def _inline_files(
    pack: Pack, pos: yamlpos.Positions, shown: str, read: Reader
) -> tuple[Pack, list[Problem]]:
    from bot.core.items import kind_of

    problems: list[Problem] = []
    questions = list(pack.questions)
    for i, q in enumerate(questions):
        fields = kind_of(q).file_fields
        if not fields:
            continue
        update: dict[str, str | None] = {}
        for key in fields:
            name = getattr(q, key)
            if name is None:
                continue
            try:
                text = read(name)
            except FileProblem as exc:
                line, col = pos.value(("questions", i, key))
                problems.append(Problem(shown, line, col, f"questions[{i}] (id `{q.id}`).{key}: `{name}` {exc}"))
                continue
            if text is None:
                line, col = pos.value(("questions", i, key))
                problems.append(
                    Problem(shown, line, col, f"questions[{i}] (id `{q.id}`).{key}: file `{name}` not found beside the pack")
                )
                continue
            update[key.removesuffix("_file")] = text
            update[key] = None
        if "test" in update and "user_code" not in (update["test"] or ""):
            line, col = pos.value(("questions", i, "test_file"))
            problems.append(Problem(shown, line, col, f"questions[{i}] (id `{q.id}`).test_file: the test must import `user_code`"))
        if update:
            questions[i] = q.model_copy(update=update)
    return pack.model_copy(update={"questions": questions}), problems


def dump_pack(pack: Pack) -> str:
    """Render a pack as a single self-contained YAML file."""
    import yaml

    data = pack.model_dump(mode="json", exclude_defaults=True)
    data.setdefault("pack", pack.pack)

    class _Dumper(yaml.SafeDumper):
        pass

    def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    _Dumper.add_representer(str, _str)
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


