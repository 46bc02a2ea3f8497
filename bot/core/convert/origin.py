"""Point a converted pack's problems back at the file the admin uploaded.

A converted pack carries `source-lines.json` next to its pack.yaml: the uploaded file's name, and for
each question its line in pack.yaml and its line in the uploaded file. When the pack later fails a
check or its proof, `relocate` turns `pack.yaml:19:3: ...` into `quiz.xml:42: question `id`: ...`.
The map is used only while pack.yaml is the one it was written for (its SHA-256 is in the map).
"""

from __future__ import annotations

import hashlib
import io
import json
import posixpath
import zipfile
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

from bot.core.errors import Problem
from bot.core.i18n import M_, said

ORIGIN_FILE = "source-lines.json"
MAX_ORIGIN_BYTES = 1024 * 1024  # 5000 items at most, each a short row
_PACK_FILE = "pack.yaml"


class SourceProblem(Problem):
    """A problem in the uploaded file: `file:line: message` (the source has no useful column)."""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {said(self.message)}" if self.line else f"{self.file}: {said(self.message)}"


@dataclass(frozen=True)
class Origin:
    source: str  # the uploaded file's name
    digest: str  # SHA-256 of the pack.yaml the lines are for
    questions: tuple[tuple[int, str, int], ...]  # (pack.yaml line, question id, source line), by pack.yaml line

    def relocate(self, problems: tuple[Problem, ...] | list[Problem], pack_yaml: bytes) -> list[Problem]:
        """Return the problems located in the uploaded file; unchanged if pack.yaml is not the converted one."""
        if hashlib.sha256(pack_yaml).hexdigest() != self.digest:
            return list(problems)
        starts = [row[0] for row in self.questions]
        out: list[Problem] = []
        for problem in problems:
            if posixpath.basename(problem.file.replace("\\", "/")) != _PACK_FILE:
                out.append(problem)
                continue
            at = bisect_right(starts, problem.line) - 1
            if at < 0:
                out.append(SourceProblem(self.source, 0, 0, problem.message))
                continue
            _, qid, line = self.questions[at]
            message = problem.message
            if not message.startswith(f"question `{qid}`"):
                message = M_("question `{id}`: {problem}", id=qid, problem=message)
            out.append(SourceProblem(self.source, line, 0, message))
        return out


def origin_json(source: str, pack_yaml: bytes, lines: dict[str, tuple[int, int]], source_lines: dict[str, int]) -> str:
    """Write the map for a converted pack (`lines`: pack.yaml positions; `source_lines`: uploaded-file lines)."""
    rows = sorted((lines[q][0], q, n) for q, n in source_lines.items() if q in lines)
    name = source.replace("\\", "/").rsplit("/", 1)[-1]
    record = {"source": name, "sha256": hashlib.sha256(pack_yaml).hexdigest(), "questions": rows}
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def read_origin(data: bytes) -> Origin | None:
    """Read a `source-lines.json`; None for anything too large or not in the expected shape."""
    if len(data) > MAX_ORIGIN_BYTES:
        return None
    try:
        record: Any = json.loads(data)
        rows = tuple(sorted((int(a), str(b), int(c)) for a, b, c in record["questions"]))
        source, digest = str(record["source"])[:200], str(record["sha256"])
    except (ValueError, KeyError, TypeError):
        return None
    return Origin(source, digest, rows)


def from_zip(data: bytes) -> tuple[Origin, bytes] | None:
    """Return the map and the pack.yaml bytes of a converted pack's .zip, or None (not converted, or unreadable)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = {m.filename: m for m in archive.infolist() if not m.is_dir()}
        found = sorted((n for n in members if posixpath.basename(n) == ORIGIN_FILE), key=lambda n: n.count("/"))
        if not found:
            return None
        root = posixpath.dirname(found[0])
        main = members.get(posixpath.join(root, _PACK_FILE) if root else _PACK_FILE)
        origin_member = members[found[0]]
        if main is None or origin_member.file_size > MAX_ORIGIN_BYTES or main.file_size > 8 * 1024 * 1024:
            return None
        origin = read_origin(archive.read(origin_member))
        return (origin, archive.read(main)) if origin is not None else None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, NotImplementedError, RuntimeError):
        return None


def in_source(problems: tuple[Problem, ...] | list[Problem], zip_data: bytes) -> list[Problem]:
    """Relocate the problems of a converted pack's .zip into the uploaded file; others stay as they are."""
    found = from_zip(zip_data)
    return found[0].relocate(problems, found[1]) if found is not None else list(problems)
