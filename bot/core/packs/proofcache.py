"""Remember proofs by the content they proved, so an unchanged pack is never run twice.

The key is the SHA-256 of the validated pack (every prompt, test, solution and limit as the loader
read them) and of its wrong-solution fixtures; the value is what the proof found, as JSON, in the
repository's small named values (`proof:<sha256>`). A chat preview proves the upload, and its Load
button finds the answer here; a restart finds the proof of an unchanged shipped pack here.
Changing one byte of a question, a test or a fixture changes the key, so the pack is proven afresh.

A clean proof is kept for good. One with failures is kept for an hour only (as long as a preview
lives): a failure may come from the moment (a sandbox too busy to finish in time), and a pack must
not stay refused for it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from bot.core.errors import Problem
from bot.core.ports import Clock, CodeRunner

from .loader import LoadedPack
from .proof import Proof, pack_folder, proof_of, wrong_solutions

KEY_PREFIX = "proof:"
_SALT = b"quizbot-proof-1\n"  # raise it when what a proof checks changes
FAILURES_KEPT = timedelta(hours=1)


class NamedValues(Protocol):
    """Where the proofs are kept (the repository's settings)."""

    async def get_setting(self, key: str) -> str | None: ...

    async def set_setting(self, key: str, value: str) -> None: ...


def pack_digest(loaded: LoadedPack, folder: Path | None = None) -> str:
    """Return the SHA-256 of everything a proof of the pack depends on."""
    digest = hashlib.sha256(_SALT)
    digest.update(loaded.pack.model_dump_json().encode())
    fixtures, problems = wrong_solutions(loaded, folder or pack_folder(loaded))
    for fixture in fixtures:
        digest.update(f"\n{fixture.question_id}/{fixture.path.name}\n".encode())
        digest.update(fixture.code.encode())
    for problem in problems:
        digest.update(f"\n{problem.message}".encode())
    return digest.hexdigest()


class ProofCache:
    """Prove packs through a runner, remembering each result by the content it proved."""

    def __init__(self, store: NamedValues, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    async def proof(
        self,
        loaded: LoadedPack,
        runner: CodeRunner,
        *,
        on_step: Callable[[], None] | None = None,
        folder: Path | None = None,
    ) -> Proof:
        """Return the proof of the pack: remembered when this content was proven before, else run now."""
        key = KEY_PREFIX + pack_digest(loaded, folder)
        remembered = _read(await self._store.get_setting(key), self._clock.now())
        if remembered is not None:
            return remembered
        found = await proof_of(loaded, runner, on_step=on_step, folder=folder)
        await self._store.set_setting(key, _write(found, self._clock.now()))
        return found

    async def known(self, loaded: LoadedPack, folder: Path | None = None) -> Proof | None:
        """Return the remembered proof of this content, or None when it was never proven (or is stale)."""
        return _read(await self._store.get_setting(KEY_PREFIX + pack_digest(loaded, folder)), self._clock.now())


def _row(problem: Problem) -> list[Any]:
    return [problem.file, problem.line, problem.col, problem.message]


def _write(found: Proof, now: datetime) -> str:
    return json.dumps(
        {
            "at": now.isoformat(),
            "pack": [_row(p) for p in found.whole_pack],
            "failing": {qid: [_row(p) for p in problems] for qid, problems in found.failing.items()},
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )


def _read(text: str | None, now: datetime) -> Proof | None:
    if not text:
        return None
    try:
        record = json.loads(text)
        failed = bool(record["pack"] or record["failing"])
        if failed and not now - datetime.fromisoformat(record["at"]) < FAILURES_KEPT:
            return None
        whole = [Problem(str(f), int(line), int(col), str(m)) for f, line, col, m in record["pack"]]
        failing = {
            str(qid): tuple(Problem(str(f), int(line), int(col), str(m)) for f, line, col, m in rows)
            for qid, rows in record["failing"].items()
        }
    except (ValueError, KeyError, TypeError, AttributeError):
        return None  # not ours or from another version: prove again
    every = whole + [p for problems in failing.values() for p in problems]
    return Proof(tuple(sorted(every, key=lambda p: (p.file, p.line, p.col, p.message))), failing)
