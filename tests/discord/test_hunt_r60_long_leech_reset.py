"""A leech whose pack and item ids are long had no Reset button on Discord.

The Reset button's action id was `dy:unleech:<pack>/<item>`: with a 40-character pack id and a
long item id (ids may have 64) it passed Discord's 100-character custom_id limit, so the button
was left out of `/quiz stats` (and of the leech note) and the learner could never bring the item
back into their daily review. Now a long pair is named by a short digest the bot matches against
the learner's leeches.
"""

from __future__ import annotations

from bot.core.daily.cards import LEECH_FAILURES
from bot.core.packs import load_bytes

from . import payloads as p
from .conftest import DailyBot, components

PACK = "a-very-long-pack-name-about-tensor-shape"  # 40 characters, the longest id a pack may have
ITEM = "broadcasting-rules-when-adding-a-vector-to-a-matrix-row-wise"  # 60 characters
LONG_PACK = f"""\
pack: {PACK}
title: Long names
version: 1
questions:
  - id: {ITEM}
    type: short
    prompt: How many dimensions has a matrix?
    accept: ["2"]
"""


async def test_a_leech_with_long_ids_still_has_its_reset_button(daily_bot: DailyBot) -> None:
    bot, wired, _poster, _repository = daily_bot
    await wired.service.import_pack(load_bytes("long.yaml", LONG_PACK.encode()).pack)
    await wired.scheduler._store.save_card_failures("discord", p.ALICE.id, (PACK, ITEM), LEECH_FAILURES, True)
    stats = await bot.command(p.ALICE, "stats")
    assert f"`{PACK}/{ITEM}`" in stats.text(), stats.text()
    daily = next(m for m in stats.stored() if any(e.get("title") == "Daily practice" for e in m["embeds"]))
    resets = [c for c in components(daily) if (c.get("label") or "").startswith("Reset")]
    assert [c["label"] for c in resets] == [f"Reset {ITEM}"], components(daily)
    assert all(len(c["custom_id"]) <= 100 for c in components(daily))
    done = await bot.click(p.ALICE, daily, f"Reset {ITEM}")
    assert f"`{PACK}/{ITEM}` is back in your daily review." in done.text(), done.text()
    again = await bot.click(p.ALICE, daily, f"Reset {ITEM}")  # a second press of the same button
    assert "not a leech" in again.text() and "back in your daily review" not in again.text(), again.text()
    after = await bot.command(p.ALICE, "stats")
    assert f"`{PACK}/{ITEM}`" not in after.text(), after.text()
