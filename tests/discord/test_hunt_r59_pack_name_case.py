"""A pack named as a person types it: `/quiz start pack:Demo`, ` demo ` pasted with spaces.

Pack ids are lower case without spaces (`PACK_ID`), so `Demo` can only mean `demo`; the bot said
"There is no pack `Demo`. Available: `demo`." and started nothing. Now the name is read as the
pack's id, on every command that names a pack (start, an admin's disable).
"""

from __future__ import annotations

from . import payloads as p
from .conftest import Harness


async def test_a_pack_named_in_capitals_starts_that_pack(bot: Harness) -> None:
    started = await bot.command(p.ALICE, "start", [p.option("pack", "DEMO")])
    assert "There is no pack" not in started.text(), started.text()
    assert started.item()["embeds"][0]["description"], started.text()


async def test_a_pack_name_pasted_with_spaces_starts_that_pack(bot: Harness) -> None:
    started = await bot.command(p.ALICE, "start", [p.option("pack", " Demo ")])
    assert "There is no pack" not in started.text(), started.text()
    assert started.item()["embeds"][0]["description"], started.text()


async def test_a_name_that_is_no_pack_in_any_case_is_still_refused(bot: Harness) -> None:
    refused = await bot.command(p.ALICE, "start", [p.option("pack", "Dmo")])
    assert "There is no pack `dmo`" in refused.text() or "There is no pack `Dmo`" in refused.text(), refused.text()


async def test_an_admin_disables_a_pack_named_in_capitals(bot: Harness) -> None:
    disabled = await bot.command(p.ADMIN, "disable", [p.option("pack", "Demo")], group="pack")
    assert "Pack `demo` is disabled here." in disabled.text(), disabled.text()
    packs = await bot.command(p.ALICE, "packs")
    assert "Demo pack (disabled here)" in packs.text(), packs.text()


async def test_a_pack_name_pasted_with_invisible_characters_starts_that_pack(bot: Harness) -> None:
    for pasted in ("\u200bdemo", "demo\u200f", "\u2066Demo\u2069"):
        started = await bot.command(p.ALICE, "start", [p.option("pack", pasted)])
        assert "There is no pack" not in started.text(), (pasted, started.text())
        assert started.item()["embeds"][0]["description"], started.text()
        await bot.command(p.ALICE, "stop")


async def test_the_pack_suggestions_read_the_name_as_the_command_will(bot: Harness) -> None:
    for typed in (" De", "\u200bdem", "DEM"):
        data = p.command("start", [{"name": "pack", "type": 3, "value": typed, "focused": True}])
        answer = await bot.feed(p.interaction(4, data, p.ALICE))
        assert [c["value"] for c in answer.data["choices"]] == ["demo"], (typed, answer.data)
