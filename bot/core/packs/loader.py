"""Read a pack from a folder, a single .yaml file, a .zip or uploaded bytes, and check it.

Every problem found becomes a `Problem` with the file, line and column of the field at fault;
`PackInvalid` carries all of them. Files a pack names (`test_file`, `solution_file`) are read and
inlined, so a loaded pack is self-contained; a name that leaves the pack's folder (an absolute path,
`..`, a symlink leading out) is refused, in a folder and in a zip alike; so is a zip that holds a
name twice, a name leaving the archive, a symbolic link or two packs side by side. The Python a
pack holds is compiled, never run (`codecheck`).

Every read has a budget, enforced while reading and never taken from what a file or a zip header
claims: MAX_PACK_BYTES for the pack file (or the uploaded .yaml/.zip), MAX_FILE_BYTES for each file
it names, MAX_TOTAL_BYTES for everything one pack reads. The YAML parse has its own budget (see
`yamlpos`).
"""

from __future__ import annotations

import io
import lzma
import posixpath
import re
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import IO

from pydantic import ValidationError

from bot.core.errors import PackInvalid, Problem
from bot.core.i18n import M_

from . import yamlpos
from .codecheck import syntax_problems
from .crosscheck import cross_check, raw_check
from .explain import problems_from
from .models import Pack

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
            raise FileProblem(M_("takes the pack over {size} read in all", size=_size(MAX_TOTAL_BYTES)))


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
            raise FileProblem(M_("is larger than {size}", size=_size(cap)))
        chunks.append(chunk)


def _the_file(exc: FileProblem) -> str:
    return M_("the file {problem}", problem=exc.args[0])


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
            raise PackInvalid([Problem(str(path), 1, 1, M_("no {name} in this folder", name=PACK_FILE))])
        budget = _Budget()
        return _load_text(_read_file(main, budget), str(main), _folder_reader(path, budget))
    if not path.is_file():  # a device or a pipe exists, but is no pack (and a pipe would never end)
        missing = M_("not a file or a folder; give a pack folder, a .yaml or a .zip file") if path.exists() else M_("no such file or folder")
        raise PackInvalid([Problem(str(path), 1, 1, missing)])
    try:
        with path.open("rb") as stream:
            data = _read_capped(stream, MAX_PACK_BYTES)
    except FileProblem as exc:
        raise PackInvalid([Problem(str(path), 1, 1, _the_file(exc))]) from None
    except OSError as exc:
        raise PackInvalid([Problem(str(path), 1, 1, M_("cannot be read ({reason})", reason=exc.strerror or exc))]) from None
    return load_bytes(path.name, data, display=str(path), base=path.parent)


def load_bytes(filename: str, data: bytes, *, display: str | None = None, base: FsPath | None = None) -> LoadedPack:
    """Load an uploaded .yaml/.yml or .zip file."""
    shown = display or filename
    if len(data) > MAX_PACK_BYTES:
        raise PackInvalid([Problem(shown, 1, 1, M_("the file is larger than {size}", size=_size(MAX_PACK_BYTES)))])
    lower = filename.lower()
    budget = _Budget()
    if lower.endswith(".zip"):
        return _load_zip(shown, data, budget)
    if lower.endswith((".yaml", ".yml")):
        if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):  # a zip's signature: no text starts so
            raise PackInvalid([Problem(shown, 1, 1, M_("the file is a .zip archive, not YAML text; give it a name ending in .zip"))])
        budget.take(len(data))
        text = _decode(data, shown)
        reader = _folder_reader(base, budget) if base is not None else _no_files
        return _load_text(text, shown, reader)
    raise PackInvalid([Problem(shown, 1, 1, M_("a pack is a .yaml or .yml file, a folder, or a .zip of a folder"))])


def _utf8(data: bytes) -> str:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(data) > 1 and (data[0] == 0) != (data[1] == 0)):
        raise FileProblem(M_("is UTF-16 text; save it as UTF-8"))  # Notepad's "Unicode": a NUL in every other byte
    try:
        return data.decode("utf-8").removeprefix("\ufeff")  # "UTF-8 with BOM": Python and YAML read it so
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FileProblem(M_("is not UTF-8 text (byte {byte}, line {line})", byte=exc.start, line=line)) from None


def _decode(data: bytes, shown: str) -> str:
    try:
        return _utf8(data)
    except FileProblem as exc:
        raise PackInvalid([Problem(shown, 1, 1, _the_file(exc))]) from None


def _read_file(path: FsPath, budget: _Budget) -> str:
    try:
        with path.open("rb") as stream:
            data = _read_capped(stream, MAX_PACK_BYTES)
        budget.take(len(data))
    except FileProblem as exc:
        raise PackInvalid([Problem(str(path), 1, 1, _the_file(exc))]) from None
    except OSError as exc:
        raise PackInvalid([Problem(str(path), 1, 1, M_("cannot be read ({reason})", reason=exc.strerror or exc))]) from None
    return _decode(data, str(path))


def _no_files(name: str) -> str | None:
    return None


def _leaves_pack(name: str) -> bool:
    """Say whether a name the pack gives leaves the pack's folder by its spelling alone."""
    normal = posixpath.normpath(name)
    return normal.startswith("/") or normal == ".." or normal.startswith("../")


def _outside() -> FileProblem:
    return FileProblem(M_("points outside the pack (absolute paths, `..` and symlinks leaving the pack are not followed)"))


def _folder_reader(root: FsPath, budget: _Budget) -> Reader:
    base = root.resolve()

    def read(name: str) -> str | None:
        if _leaves_pack(name):
            raise _outside()
        try:
            target = (base / name).resolve()
            if not target.is_relative_to(base):
                raise _outside()  # a symlink on the way leads out of the pack
            if not target.is_file():
                return None
            with target.open("rb") as stream:
                data = _read_capped(stream, MAX_FILE_BYTES)
        except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
            raise FileProblem(M_("cannot be read ({reason})", reason=getattr(exc, "strerror", None) or exc)) from None
        budget.take(len(data))
        return _utf8(data)

    return read


# What reading a damaged or unusual zip member can raise: a bad CRC or header (BadZipFile), a
# password (RuntimeError), an unknown compression method (NotImplementedError), a corrupt stream.
_ZIP_ERRORS = (zipfile.BadZipFile, RuntimeError, NotImplementedError, zlib.error, lzma.LZMAError, EOFError, OSError, ValueError)


def _read_member(archive: zipfile.ZipFile, member: zipfile.ZipInfo, cap: int) -> bytes:
    """Read one member by decompressing at most `cap` bytes; its header's sizes are not trusted."""
    if member.flag_bits & 0x1:
        raise FileProblem(M_("is encrypted; zip the pack without a password"))
    if (member.external_attr >> 16) & 0o170000 == 0o120000:
        raise FileProblem(M_("is a symbolic link; zip the file itself"))
    if member.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise FileProblem(M_("uses compression method {method}; use the standard one (deflate)", method=member.compress_type))
    try:
        with archive.open(member) as stream:
            return _read_capped(stream, cap)
    except FileProblem:
        raise
    except _ZIP_ERRORS as exc:
        if "CRC" in str(exc):
            raise FileProblem(M_("cannot be unpacked: its checksum does not match (a damaged .zip)")) from None
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise FileProblem(M_("cannot be unpacked: {reason}", reason=reason)) from None


def _zip_names(shown: str, members: list[zipfile.ZipInfo]) -> dict[str, zipfile.ZipInfo]:
    """The archive's files by path (a Windows tool's `\\` read as `/`); a name held twice or leaving it is refused."""
    names: dict[str, zipfile.ZipInfo] = {}
    for member in members:
        normal = posixpath.normpath(member.filename.replace("\\", "/"))
        if _leaves_pack(normal) or re.match(r"[A-Za-z]:(/|$)", normal):
            message = M_("the .zip holds `{name}`, a path that leaves the archive; zip the pack folder itself", name=member.filename)
            raise PackInvalid([Problem(shown, 1, 1, message)])
        if normal in names:
            raise PackInvalid([Problem(shown, 1, 1, M_("the .zip holds `{name}` twice; zip the pack folder again", name=normal))])
        names[normal] = member
    return names


def _load_zip(shown: str, data: bytes, budget: _Budget) -> LoadedPack:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = [m for m in archive.infolist() if not m.filename.endswith(("/", "\\"))]
    except _ZIP_ERRORS as exc:
        if re.search(rb"^[\"']?(?:pack|questions)[\"']?[ \t]*:", data[:65536], re.M) and not data.startswith(b"PK"):
            raise PackInvalid([Problem(shown, 1, 1, M_("not a valid .zip file: it holds YAML text; give it a name ending in .yaml"))]) from exc
        raise PackInvalid([Problem(shown, 1, 1, M_("not a valid .zip file"))]) from exc
    if len(members) > MAX_ZIP_MEMBERS:
        raise PackInvalid([Problem(shown, 1, 1, M_("the .zip holds more than {most} files", most=MAX_ZIP_MEMBERS))])
    names = _zip_names(shown, members)
    mains = sorted((n for n in names if posixpath.basename(n) == PACK_FILE), key=lambda n: n.count("/"))
    if not mains:
        inner = next((n for n in names if n.lower().endswith(".zip")), None)
        if inner is not None:
            message = M_("the .zip holds no {name}, but holds `{inner}`: unzip that and zip the pack folder itself", name=PACK_FILE, inner=inner)
            raise PackInvalid([Problem(shown, 1, 1, message)])
        raise PackInvalid([Problem(shown, 1, 1, M_("the .zip holds no {name}", name=PACK_FILE))])
    main = mains[0]
    root = posixpath.dirname(main)
    other = next((n for n in mains[1:] if n.count("/") == main.count("/") or (root and not n.startswith(f"{root}/"))), None)
    if other is not None:  # beside it, or deeper in another folder: a pack.yaml in the pack's own folder is its file
        both = f"`{main}`, `{other}`"
        raise PackInvalid([Problem(shown, 1, 1, M_("the .zip holds more than one pack ({both}); zip one pack per file", both=both))])

    def read(name: str) -> str | None:
        if _leaves_pack(name):  # the folder rule: the pack's own folder, even where the archive holds more
            raise _outside()
        full = posixpath.normpath(posixpath.join(root, name))
        if full not in names:
            return None
        content = _read_member(archive, names[full], MAX_FILE_BYTES)
        budget.take(len(content))
        return _utf8(content)

    try:
        raw = _read_member(archive, names[main], MAX_PACK_BYTES)
        budget.take(len(raw))
    except FileProblem as exc:
        raise PackInvalid([Problem(f"{shown}/{main}", 1, 1, _the_file(exc))]) from None
    text = _decode(raw, f"{shown}/{main}")
    return _load_text(text, f"{shown}/{main}", read)


def _load_text(text: str, shown: str, read: Reader) -> LoadedPack:
    try:
        data, positions = yamlpos.parse(text)
    except yamlpos.YamlProblem as exc:
        raise PackInvalid([Problem(shown, exc.line, exc.col, exc.message)]) from None
    if not isinstance(data, dict):
        raise PackInvalid([Problem(shown, 1, 1, M_("a pack must be a mapping with `pack`, `title`, `version` and `questions`"))])
    try:
        pack = Pack.model_validate(data)
    except ValidationError as exc:
        # Every other problem too, as far as it does not depend on what failed: one run lists them all.
        problems = problems_from(exc, data, positions, shown)
        found, valid = raw_check(data, positions, shown)
        problems.extend(found)
        problems.extend(syntax_problems(valid, positions, shown, text, {}))
        raise PackInvalid(_capped(_in_order(problems, shown))) from None
    problems = cross_check(pack, positions, shown)
    pack, origins, file_problems = _inline_files(pack, positions, shown, read)
    problems.extend(file_problems)
    problems.extend(syntax_problems(enumerate(pack.questions), positions, shown, text, origins))
    if problems:
        raise PackInvalid(_capped(_in_order(problems, shown)))
    lines = {q.id: positions.value(("questions", i)) for i, q in enumerate(pack.questions)}
    return LoadedPack(pack=pack, source=shown, lines=lines)


def _in_order(problems: list[Problem], shown: str) -> list[Problem]:
    """The pack file's problems first, then each file's, each by line and column."""
    return sorted(problems, key=lambda p: (p.file != shown, p.file, p.line, p.col))


def _capped(problems: list[Problem]) -> list[Problem]:
    if len(problems) <= MAX_PROBLEMS:
        return problems
    last = problems[MAX_PROBLEMS - 1]
    more = len(problems) - MAX_PROBLEMS + 1
    return [*problems[: MAX_PROBLEMS - 1], Problem(last.file, last.line, last.col, M_("... and {n} more problems", n=more))]


def _inline_files(
    pack: Pack, pos: yamlpos.Positions, shown: str, read: Reader
) -> tuple[Pack, dict[tuple[int, str], tuple[str, str]], list[Problem]]:
    """Read the files the questions name into their fields.

    Return the pack, where each inlined field came from ((question index, field) -> (the file as
    problems name it, the field that named it)), and the problems.
    """
    from bot.core.items import kind_of

    problems: list[Problem] = []
    origins: dict[tuple[int, str], tuple[str, str]] = {}
    folder = posixpath.dirname(shown)
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
                problems.append(Problem(shown, line, col, M_("{where}: `{name}` {problem}", where=f"questions[{i}] (id `{q.id}`).{key}", name=name, problem=exc.args[0])))
                continue
            if text is None:
                line, col = pos.value(("questions", i, key))
                problems.append(
                    Problem(shown, line, col, M_("{where}: file `{name}` not found beside the pack", where=f"questions[{i}] (id `{q.id}`).{key}", name=name))
                )
                continue
            update[key.removesuffix("_file")] = text
            update[key] = None
            origins[(i, key.removesuffix("_file"))] = (posixpath.join(folder, posixpath.normpath(name)), key)
        if "test" in update and "user_code" not in (update["test"] or ""):
            line, col = pos.value(("questions", i, "test_file"))
            problems.append(Problem(shown, line, col, M_("{where}.test_file: the test must import `user_code`", where=f"questions[{i}] (id `{q.id}`)")))
        if update:
            questions[i] = q.model_copy(update=update)
    return pack.model_copy(update={"questions": questions}), origins, problems


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


