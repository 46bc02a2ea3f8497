"""Load the packs of `QUIZBOT_PACKS` at start: new packs and higher versions, proven first.

Each pack's files are hashed (SHA-256 of every file's path and bytes). A start remembers, under
`startup-pack:<hash>`, which pack and version those exact files are; the next start finds the hash,
sees that version stored and moves on without reading, validating or running anything. A changed
file changes the hash: that pack is read and validated again, and, when its version is higher than
the stored one, proven in the sandbox (a proof is itself kept by content, see
`bot.core.packs.proofcache`) and stored without the questions that fail, which are logged.

When no sandbox is configured, or it does not run a trivial job, packs are stored unproven as
before, with a warning (`quizbot pack import` proves and stores one by hand).

These packs are the operator's (`packs.owner` NULL). A higher version of a pack that a server's or
workspace's admin loaded from the chat (and so owns) is not stored over it: a warning says so, each
start, until the operator renames one of them or replaces theirs with `quizbot pack import`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from .core import CodeRunner, QuizService
from .core import queries as q
from .core.errors import PackInvalid, PackRefused, QuizError
from .core.packs import LoadedPack, load_path
from .core.packs.proof import passing_part
from .core.packs.proofcache import NamedValues
from .core.ports import RunRequest

log = logging.getLogger("quizbot")

KEY_PREFIX = "startup-pack:"
MAX_HASHED_BYTES = 64 * 1024 * 1024  # a folder larger than this is not remembered (the loader refuses it anyway)


@dataclass
class StartupReport:
    """What a start did with each pack path: for logs and tests."""

    unchanged: list[Path] = field(default_factory=list)  # remembered: neither read nor run
    read: list[Path] = field(default_factory=list)  # read and validated
    proven: list[str] = field(default_factory=list)  # pack ids proven (or found proven) before storing
    stored: list[str] = field(default_factory=list)
    left_out: dict[str, list[str]] = field(default_factory=dict)  # pack id -> question ids that failed


def pack_dirs(folders: list[Path]) -> list[Path]:
    """Return the packs in the configured folders: folders holding pack.yaml, and .yaml files."""
    found: list[Path] = []
    for folder in folders:
        if (folder / "pack.yaml").is_file():
            found.append(folder)
        elif folder.is_dir():
            found.extend(sorted(p.parent for p in folder.glob("*/pack.yaml")))
            found.extend(sorted(folder.glob("*.yaml")))
    return found


def files_digest(path: Path) -> str | None:
    """Return the SHA-256 of a pack's files (a folder: every file under it, by relative path), or None."""
    digest = hashlib.sha256(b"quizbot-pack-files-1\n")
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    total = 0
    try:
        for file in files:
            if "__pycache__" in file.parts:
                continue
            data = file.read_bytes()
            total += len(data)
            if total > MAX_HASHED_BYTES:
                return None
            name = file.relative_to(path).as_posix() if path.is_dir() else file.name
            digest.update(f"\n{name}\n{len(data)}\n".encode())
            digest.update(data)
    except OSError:
        return None
    return digest.hexdigest()


async def load_shipped_packs(
    service: QuizService, folders: list[Path], *, store: NamedValues, runner: CodeRunner | None = None
) -> StartupReport:
    """Import packs from the configured folders when they are new or have a higher version; prove them first.

    `store` keeps which files were seen (the repository's small named values); `runner` proves packs.
    """
    report = StartupReport()
    stored = {p.id: p.version for p in await service.ask(q.PackList(None))}
    owners = await service.catalogue.owners()
    sandbox: bool | None = None  # asked once, when a pack first needs proving
    for path in pack_dirs(folders):
        digest = await asyncio.to_thread(files_digest, path)
        seen = await _remembered(store, digest)
        if seen is not None and stored.get(seen[0], 0) >= seen[1]:
            report.unchanged.append(path)
            continue
        report.read.append(path)
        try:
            loaded = await asyncio.to_thread(load_path, path)
        except PackInvalid as exc:
            log.error("pack %s is invalid and was not loaded:\n%s", path, exc)
            continue
        pack_id, version = loaded.pack.pack, loaded.pack.version
        if owners.get(pack_id) is not None:  # not replaced behind its admins' backs (said each start,
            # whatever the versions: the file is not remembered); the operator may, by hand
            log.warning(
                "pack %s v%s at %s was not loaded: the stored pack `%s` was loaded from the chat by %s and is theirs "
                "(give this one another id, or replace theirs with `quizbot pack import %s`)",
                pack_id, version, path, pack_id, owners[pack_id], path,
            )  # fmt: skip
            continue
        if stored.get(pack_id, 0) >= version:
            if seen is None and pack_id in stored and stored[pack_id] == version and digest is not None:
                log.info("pack %s v%s at %s is the stored version; raise `version` for a change to load", pack_id, version, path)
            await _remember(store, digest, pack_id, version)
            continue
        if sandbox is None:
            sandbox = await _sandbox_answers(runner)
            if sandbox:  # the operator would otherwise see nothing for a minute or so
                log.warning("proving new pack versions in the sandbox before serving (once: later starts skip unchanged packs)")
        if sandbox:
            kept = await _prove(service, loaded, report)
            if kept is None:
                continue
            loaded = kept
        try:
            result = await service.import_pack(loaded.pack)
        except PackRefused as exc:
            log.warning("%s", exc)
            continue
        log.info("%s", result.summary())
        report.stored.append(pack_id)
        stored[pack_id] = version
        if sandbox:
            await _remember(store, digest, pack_id, version)
        else:
            log.warning("pack %s v%s stored unproven: no sandbox answered (`quizbot pack import` proves it)", pack_id, version)
    return report


async def _prove(service: QuizService, loaded: LoadedPack, report: StartupReport) -> LoadedPack | None:
    """Return the part of the pack that passed its proof (None: nothing to store); log what failed."""
    try:
        found = await service.pack_admin.proof(loaded)
    except QuizError as exc:
        log.error("pack %s was not loaded: %s", loaded.pack.pack, exc)
        return None
    report.proven.append(loaded.pack.pack)
    if found.failing:
        report.left_out[loaded.pack.pack] = list(found.failing)
        log.error(
            "pack %s: %d question(s) failed the proof and were left out:\n%s",
            loaded.pack.pack,
            len(found.failing),
            "\n".join(str(p) for p in found.problems),
        )
    try:
        return passing_part(loaded, found)
    except PackInvalid as exc:
        log.error("pack %s was not loaded: nothing in it passed the proof:\n%s", loaded.pack.pack, exc)
        return None


async def _sandbox_answers(runner: CodeRunner | None) -> bool:
    """Run one trivial job: a sandbox that is missing or turns it away cannot prove packs now."""
    if runner is None:
        return False
    try:
        outcome = await runner.run(RunRequest("pass\n"))
    except Exception:  # a pool that cannot start here: the bot still starts, packs unproven
        log.exception("the sandbox could not run a trivial job")
        return False
    if outcome.status != "passed":
        log.warning("the sandbox did not run a trivial job (%s: %s)", outcome.status, outcome.message)
        return False
    return True


async def _remembered(store: NamedValues, digest: str | None) -> tuple[str, int] | None:
    if digest is None:
        return None
    text = await store.get_setting(KEY_PREFIX + digest)
    try:
        record = json.loads(text) if text else None
        return (str(record["pack"]), int(record["version"])) if record else None
    except (ValueError, KeyError, TypeError):
        return None


async def _remember(store: NamedValues, digest: str | None, pack_id: str, version: int) -> None:
    if digest is not None:
        await store.set_setting(KEY_PREFIX + digest, json.dumps({"pack": pack_id, "version": version}))
