"""Progress and leaderboard pictures: valid PNGs of the right size, drawn off the event loop."""

from __future__ import annotations

import asyncio
import struct
import zlib
from datetime import UTC, date, datetime, timedelta

from bot.core import QuizService
from bot.core.pictures import (
    MAX_BYTES,
    ProgressData,
    TopicProgress,
    leaderboard_image,
    progress_alt,
    progress_image,
)
from bot.core.race import RaceService
from bot.core.race import actions as rx
from bot.storage import SqlRepository
from bot.storage.social import SocialStore
from tests.fakes import FakeClock

from .conftest import Posts
from .helpers import member, race_pack

TODAY = date(2026, 12, 1)


def png_size(data: bytes) -> tuple[int, int]:
    """Check the PNG signature and every chunk's CRC; return (width, height)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    offset, chunks = 8, []
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        body = data[offset + 8 : offset + 8 + length]
        (crc,) = struct.unpack(">I", data[offset + 8 + length : offset + 12 + length])
        assert zlib.crc32(kind + body) == crc
        chunks.append(kind)
        offset += 12 + length
    assert chunks[0] == b"IHDR" and chunks[-1] == b"IEND"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def busy_learner(topics: int = 12) -> ProgressData:
    per_day = {TODAY - timedelta(days=d): (d * 7) % 23 for d in range(120)}
    return ProgressData(
        topics=tuple(
            TopicProgress(f"pytorch-pack · a topic with a long name number {i}", 40 + i, 20 + i, i) for i in range(topics)
        ),
        per_day=per_day,
        practice_days=tuple(sorted((d for d, n in per_day.items() if n), reverse=True)),
        today=TODAY,
    )


async def test_the_progress_picture_is_a_small_valid_png() -> None:
    image = await progress_image("Ann", busy_learner())
    width, height = png_size(image.data)
    assert (width, height) == (800, round(100 * (0.42 * 12 + 0.9 + 2.9)))
    assert len(image.data) < MAX_BYTES
    assert image.filename == "progress.png"
    assert "Progress of Ann" in image.alt and "mastered" in image.alt


async def test_a_learner_with_nothing_yet_still_gets_a_picture() -> None:
    empty = ProgressData(topics=(), per_day={}, practice_days=(), today=TODAY)
    image = await progress_image("New", empty)
    png_size(image.data)
    assert "streak 0 days" in image.alt


async def test_the_leaderboard_picture_is_a_valid_png() -> None:
    image = await leaderboard_image("Leaderboard this week", [("Ann", 120), ("Bob", 80), ("Cat", 20)])
    png_size(image.data)
    assert len(image.data) < MAX_BYTES
    assert "1. Ann 120 points" in image.alt


async def test_rendering_leaves_the_event_loop_free() -> None:
    """While a picture renders, other coroutines keep running (it happens in a worker thread)."""
    beats = 0
    stop = asyncio.Event()

    async def heartbeat() -> None:
        nonlocal beats
        while not stop.is_set():
            beats += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(heartbeat())
    await asyncio.sleep(0)
    before = beats
    image = await progress_image("Ann", busy_learner())
    during = beats - before
    stop.set()
    await task
    png_size(image.data)
    # Drawn on the loop, the await would return without the heartbeat running once in between.
    assert during >= 2


async def test_picture_data_comes_from_the_learners_answers(repository: SqlRepository) -> None:
    clock = FakeClock(datetime(2026, 12, 1, 9, 0, tzinfo=UTC))
    await QuizService(repository=repository, runner=None, clock=clock).import_pack(race_pack(others=False))
    store = SocialStore.beside(repository)
    races = RaceService(repository=repository, store=store, clock=clock, publish=Posts(), timers=False)
    await races.start(member("Ann"), rounds=3, seconds=30)
    race = await store.running_race("discord", "guild-1", "chan-1")
    assert race is not None
    for index in range(3):
        await races.act(member("Bob"), rx.make(race.id, index, rx.CHOOSE, 0 if index else 1))
        clock.advance(seconds=30)
        await races.tick()
    data = (await store.progress_data("discord", "bob", now=clock.now())).settled(clock.now())
    # Mastered means a card stable for over 21 days (bot.core.progress): three race answers are not that.
    assert [(t.label, t.answers, t.right, t.mastered) for t in data.topics] == [("race-pack · tensors", 3, 2, 0)]
    assert data.per_day == {date(2026, 12, 1): 3}
    assert data.streak == 1
    assert "67% right of 3, 0 mastered" in progress_alt("Bob", data)
    image = await progress_image("Bob", data)
    png_size(image.data)
