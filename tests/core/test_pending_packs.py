"""Converted packs waiting for their admin: one hour, one admin, one use, emptied when stale."""

from __future__ import annotations

import pytest

from bot.core import Actor
from bot.core.errors import QuizError
from bot.core.importing import KEY_PREFIX, PendingPacks, PreviewGone
from bot.storage import SqlRepository
from tests.fakes import FakeClock

ADA = Actor("discord", "guild-1", "ada", "Ada", is_admin=True)
EVE = Actor("discord", "guild-1", "eve", "Eve", is_admin=True)


async def test_a_pending_pack_is_kept_for_its_admin_for_an_hour(repository: SqlRepository, clock: FakeClock) -> None:
    pending = PendingPacks(repository, clock)
    key = await pending.put(ADA, "p.zip", b"PK\x03\x04data", force=True)
    got = await pending.get(ADA, key)
    assert (got.filename, got.data, got.force) == ("p.zip", b"PK\x03\x04data", True)
    with pytest.raises(QuizError, match="belongs to the admin who uploaded"):
        await pending.get(EVE, key)
    clock.advance(minutes=61)
    with pytest.raises(PreviewGone):
        await pending.get(ADA, key)
    assert await repository.get_setting(KEY_PREFIX + key) == ""  # its data is gone too


async def test_stale_previews_are_emptied_at_the_next_upload(repository: SqlRepository, clock: FakeClock) -> None:
    pending = PendingPacks(repository, clock)
    old = await pending.put(ADA, "old.zip", b"old", force=False)
    clock.advance(minutes=30)
    live = await pending.put(ADA, "live.zip", b"live", force=False)
    clock.advance(minutes=45)  # the first is over an hour old, the second is not
    await pending.put(EVE, "new.zip", b"new", force=False)
    assert await repository.get_setting(KEY_PREFIX + old) == ""
    assert (await pending.get(ADA, live)).data == b"live"
    await pending.drop(live)
    with pytest.raises(PreviewGone):
        await pending.get(ADA, live)


async def test_a_forged_or_damaged_key_is_refused(repository: SqlRepository, clock: FakeClock) -> None:
    pending = PendingPacks(repository, clock)
    with pytest.raises(PreviewGone):
        await pending.get(ADA, "no-such-key")
    await repository.set_setting(KEY_PREFIX + "damaged", "{not json")
    with pytest.raises(PreviewGone):
        await pending.get(ADA, "damaged")
    with pytest.raises(PreviewGone):
        await pending.get(ADA, "x" * 41)
