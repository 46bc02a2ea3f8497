"""`quizbot pack import`: one pack, or another tool's file converted first, proven and stored.

With `--skip-failing` the questions that fail their proof are listed with the reason and the rest
is stored; without it a pack is stored whole or not at all.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from .core.errors import PackInvalid, PackRefused, Problem, QuizError
from .core.i18n import M_
from .core.replies import plural

if TYPE_CHECKING:
    from .core import QuizService
    from .core.packs import LoadedPack

log = logging.getLogger("quizbot.cli")
err = Console(stderr=True, highlight=False)
out = Console(highlight=False)


async def import_one(service: QuizService, path: Path, *, force: bool, proving: bool, skip: bool) -> int:
    """Load one pack (or convert another tool's file first), prove it and store it; return the exit status."""
    from .core.convert import in_source
    from .core.packs import load_path
    from .core.packs.proof import passing_part

    def located(problems: Sequence[Problem], zipped: bytes | None) -> list[Problem]:
        return in_source(list(problems), zipped) if zipped is not None else in_source_files(problems, [path])

    zipped: bytes | None = None
    try:
        converted = await asyncio.to_thread(_converted_for_import, path)
        if converted is None:
            loaded_pack = await asyncio.to_thread(load_path, path)
        else:
            loaded_pack, zipped = converted
        if proving:
            found = await service.pack_admin.proof(loaded_pack)
            if not found.ok and not skip:
                raise PackInvalid(list(found.problems))
            kept = passing_part(loaded_pack, found)
            if found.failing:
                err.print(
                    f"Left out {plural(len(found.failing), 'question')} that failed the proof (--skip-failing):",
                    markup=False,
                    soft_wrap=True,
                )
                for problem in located(found.problems, zipped):
                    out.print(str(problem), markup=False, soft_wrap=True)
            loaded_pack = kept
        report = await service.import_pack(loaded_pack.pack, force=force)
        if not proving:  # said once it is stored: a refused import stores nothing
            log.warning("pack %s stored unproven (--unproven)", loaded_pack.pack.pack)
        out.print(report.summary(), markup=False)
        return 0
    except PackInvalid as exc:
        for problem in located(exc.problems, zipped):
            out.print(str(problem), markup=False, soft_wrap=True)
        return 1
    except (PackRefused, QuizError) as exc:
        err.print(str(exc), markup=False, soft_wrap=True)
        return 1


def _converted_for_import(path: Path) -> tuple[LoadedPack, bytes] | None:
    """Convert another tool's file (Moodle XML, GIFT, ...) as `pack convert` would; None for a pack file or folder.

    Prints the conversion's report; raises QuizError when nothing in the file converts.
    """
    from .core.convert import MAX_INPUT_BYTES, convert_bytes, is_native_pack
    from .core.packs import load_bytes

    if not path.is_file():
        return None
    if is_native_pack(path.name, read_source(path, 64 * 1024)):
        return None
    data = read_source(path, MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:  # counted while reading, not taken from what stat() says
        raise QuizError(f"{path}: the file is larger than {MAX_INPUT_BYTES // 1048576} MiB, the limit for conversion")
    conversion = convert_bytes(str(path), data)
    for line in conversion.report_lines():
        err.print(line, markup=False, soft_wrap=True)
    if not conversion.ok or conversion.loaded is None:
        raise QuizError(f"{path}: nothing was converted; nothing was loaded.")
    zipped = conversion.zip_bytes()
    return load_bytes(f"{conversion.pack['pack']}.zip", zipped), zipped


def read_source(path: Path, most: int) -> bytes:
    """Read at most `most` bytes of a file; one that cannot be read is a QuizError naming it and why."""
    try:
        with path.open("rb") as handle:
            return handle.read(most)
    except OSError as exc:  # an I/O error has no file name of its own: say which file, and that it was a read
        raise QuizError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def in_source_files(problems: Sequence[Problem], paths: Sequence[Path]) -> list[Problem]:
    """Point the problems of a converted pack (folder or .zip) at the file it was converted from."""
    from .core.convert import ORIGIN_FILE, in_source, read_origin
    from .core.convert.origin import MAX_ORIGIN_BYTES

    located = list(problems)
    for path in paths:
        mine = [p for p in located if p.file == str(path) or p.file.startswith((f"{path}/", f"{path}{os.sep}"))]
        if not mine:
            continue
        moved = mine
        try:
            if path.is_dir() and (path / ORIGIN_FILE).is_file() and (path / ORIGIN_FILE).stat().st_size <= MAX_ORIGIN_BYTES:
                origin = read_origin((path / ORIGIN_FILE).read_bytes())
                if origin is not None and (path / "pack.yaml").stat().st_size <= 8 * 1024 * 1024:
                    moved = origin.relocate(mine, (path / "pack.yaml").read_bytes())
            elif path.is_file() and path.suffix.lower() == ".zip" and path.stat().st_size <= 8 * 1024 * 1024:
                moved = in_source(mine, path.read_bytes())
        except OSError:
            moved = mine
        swap = dict(zip(map(id, mine), moved, strict=True))
        located = [swap.get(id(p), p) for p in located]
    return located


def id_clashes(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """Name each pack whose id an earlier one of `loaded` has: loaded together, one would shadow the other."""
    first: dict[str, LoadedPack] = {}
    problems: list[Problem] = []
    for one in loaded:
        earlier = first.setdefault(one.pack.pack, one)
        if earlier is not one and earlier.source != one.source:  # not the same file named twice
            message = M_(
                "pack: `{pack}` is also the id of {other}; loaded, one would replace the other: give each pack its own id",
                pack=one.pack.pack, other=earlier.source,
            )
            problems.append(Problem(one.source, 1, 1, message))
    return problems
