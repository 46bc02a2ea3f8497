"""Read a pack from a folder, a single .yaml file, a .zip or uploaded bytes, and check it.

Every problem found becomes a `Problem` with the file, line and column of the field at fault;
`PackInvalid` carries all of them. Files a pack names (`test_file`, `solution_file`) are read and
inlined, so a loaded pack is self-contained.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any

from pydantic import ValidationError

from bot.core.errors import PackInvalid, Problem

from . import yamlpos
from .models import Pack

MAX_PACK_BYTES = 2 * 1024 * 1024
MAX_ZIP_MEMBERS = 500
PACK_FILE = "pack.yaml"

Reader = Callable[[str], str | None]


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
        return _load_text(_read_file(main), str(main), _folder_reader(path))
    if not path.exists():
        raise PackInvalid([Problem(str(path), 1, 1, "no such file or folder")])
    return load_bytes(path.name, path.read_bytes(), display=str(path), base=path.parent)


def load_bytes(filename: str, data: bytes, *, display: str | None = None, base: FsPath | None = None) -> LoadedPack:
    """Load an uploaded .yaml/.yml or .zip file."""
    shown = display or filename
    if len(data) > MAX_PACK_BYTES:
        raise PackInvalid([Problem(shown, 1, 1, f"the file is larger than {MAX_PACK_BYTES // 1024} KiB")])
    lower = filename.lower()
    if lower.endswith(".zip"):
        return _load_zip(shown, data)
    if lower.endswith((".yaml", ".yml")):
        text = _decode(data, shown)
        reader = _folder_reader(base) if base is not None else _no_files
        return _load_text(text, shown, reader)
    raise PackInvalid([Problem(shown, 1, 1, "a pack is a .yaml or .yml file, a folder, or a .zip of a folder")])


def _decode(data: bytes, shown: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PackInvalid([Problem(shown, 1, 1, f"not UTF-8 text (byte {exc.start})")]) from exc


def _read_file(path: FsPath) -> str:
    return _decode(path.read_bytes(), str(path))


def _no_files(name: str) -> str | None:
    return None


def _folder_reader(root: FsPath) -> Reader:
    base = root.resolve()

    def read(name: str) -> str | None:
        target = (base / name).resolve()
        if not target.is_relative_to(base) or not target.is_file():
            return None
        return target.read_text(encoding="utf-8")

    return read


def _load_zip(shown: str, data: bytes) -> LoadedPack:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise PackInvalid([Problem(shown, 1, 1, "not a valid .zip file")]) from exc
    members = [m for m in archive.infolist() if not m.is_dir()]
    if len(members) > MAX_ZIP_MEMBERS:
        raise PackInvalid([Problem(shown, 1, 1, f"the .zip holds more than {MAX_ZIP_MEMBERS} files")])
    if sum(m.file_size for m in members) > 4 * MAX_PACK_BYTES:
        raise PackInvalid([Problem(shown, 1, 1, "the .zip unpacks to more than 8 MiB")])
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
        return archive.read(names[full]).decode("utf-8", errors="replace")

    text = _decode(archive.read(names[main]), f"{shown}/{main}")
    return _load_text(text, f"{shown}/{main}", read)


def _load_text(text: str, shown: str, read: Reader) -> LoadedPack:
    try:
        data, positions = yamlpos.parse(text)
    except yamlpos.YamlProblem as exc:
        raise PackInvalid([Problem(shown, exc.line, exc.col, exc.message)]) from exc
    if not isinstance(data, dict):
        raise PackInvalid([Problem(shown, 1, 1, "a pack must be a mapping with `pack`, `title`, `version` and `questions`")])
    try:
        pack = Pack.model_validate(data)
    except ValidationError as exc:
        raise PackInvalid(_problems_from(exc, data, positions, shown)) from exc
    problems = _cross_check(pack, positions, shown)
    pack, file_problems = _inline_files(pack, positions, shown, read)
    problems.extend(file_problems)
    if problems:
        raise PackInvalid(sorted(problems, key=lambda p: (p.line, p.col)))
    lines = {q.id: positions.value(("questions", i)) for i, q in enumerate(pack.questions)}
    return LoadedPack(pack=pack, source=shown, lines=lines)


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
    problems: list[Problem] = []
    seen: set[tuple[int, int, str]] = set()
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
        kind = error["type"]
        missing_field = error["loc"][-1] if error["loc"] else ""
        if kind == "missing":
            line, col = positions.value(path)
            message = f"{describe(path, data)}: missing required field `{missing_field}`"
        elif kind == "extra_forbidden":
            line, col = positions.key(path)
            message = f"{describe(path, data)}: unknown field (check the spelling)"
        elif kind == "union_tag_invalid":
            line, col = positions.value((*path, "type"))
            message = f"{describe(path, data)}.type: must be one of choice, blanks, short, code"
        elif kind == "union_tag_not_found":
            line, col = positions.value(path)
            message = f"{describe(path, data)}: missing required field `type` (choice, blanks, short or code)"
        elif kind in ("bool_type", "bool_parsing"):
            line, col = positions.value(path)
            message = f"{describe(path, data)}: write `true` or `false` (YAML's yes/no/on/off are read as text here)"
        else:
            line, col = positions.value(path)
            message = f"{describe(path, data)}: {error['msg']}"
        key = (line, col, message)
        if key not in seen:
            seen.add(key)
            problems.append(Problem(shown, line, col, message))
    return problems


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
            text = read(name)
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


