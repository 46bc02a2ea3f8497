"""PostgreSQL's heartbeats in the core: a process that stops beating has its work told by another, a live one never."""

from __future__ import annotations

import asyncio
import contextlib

from bot.core.work import SILENT_BEATS
from tests.core.test_unfinished_work import (  # noqa: F401 (the fixtures)
    ANN,
    BEN,
    NOTE,
    Process,
    attempts_left_untouched,
    clock,
    kill,
    notes,
    repo,
    started,
)
from tests.fakes import FakeClock
from tests.memory_repo import MemoryRepository

BEAT_S = 10.0


async def beat_once(process: Process) -> None:
    """Run one round of the process's keep-alive loop (its sleep is real: cut it off right after the beat)."""
    task = asyncio.create_task(process.work.keep_alive(every_s=BEAT_S))
    await asyncio.sleep(0.01)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def test_a_killed_process_silent_for_three_beats_is_told_by_the_live_one_and_the_live_one_keeps_its_work(
    repo: MemoryRepository, clock: FakeClock  # noqa: F811 (the fixtures)
) -> None:
    a, b = Process(repo, clock), Process(repo, clock)
    await beat_once(a)
    await beat_once(b)
    sid = await started(a)
    await kill(await a.grading())  # killed: its row's deadline is minutes away
    await started(b, BEN)
    own = await b.grading(BEN)  # the live process grades its own learner's code, for a long while

    clock.advance(seconds=BEAT_S * SILENT_BEATS - 1)
    await beat_once(b)  # `a` missed only two beats: maybe it is just slow
    assert notes(await b.service.current(ANN)) == []
    clock.advance(seconds=2)
    await beat_once(b)  # `a` silent for more than three beats: its rows are abandoned
    reply = await b.service.current(ANN)
    assert len(notes(reply)) == 1 and reply.messages[0].text().startswith("🔄 " + NOTE)
    await attempts_left_untouched(repo, sid)

    clock.advance(seconds=BEAT_S * SILENT_BEATS * 2)
    await beat_once(b)
    assert notes(await b.service.current(BEN)) == []  # its own work, however long, is never abandoned by itself
    b.runner.release.set()
    assert (await own).update is not None and repo.work == {}
