"""Hunt: `/quiz pack enable|disable|remove` and `/quiz report` offer pack ids as you type.

Another server's pack is not listed in this server until an admin here enables it by id
(docs/admins/packs.md, "Whose pack it is"): the suggestions must not name it either.
"""

from __future__ import annotations

from tests.conftest import hand_demo_to

from . import payloads as p
from .conftest import Harness


def typed(sub: str, value: str, *, group: str | None = "pack") -> dict[str, object]:
    return p.command(sub, [{"name": "pack", "type": 3, "value": value, "focused": True}], group=group)


async def suggested(bot: Harness, sub: str, *, group: str | None = "pack") -> list[str]:
    answer = await bot.feed(p.interaction(4, typed(sub, "", group=group), p.ADMIN))
    assert answer.kind == 8
    return [c["value"] for c in answer.data["choices"]]


async def test_another_servers_pack_is_not_suggested_here(bot: Harness) -> None:
    assert await suggested(bot, "enable") == ["demo"]  # the operator's: on everywhere, suggested
    await hand_demo_to(bot.service, "discord:800000000000000999")  # another server's pack
    for sub, group in (("enable", "pack"), ("disable", "pack"), ("remove", "pack"), ("report", None)):
        assert "demo" not in await suggested(bot, sub, group=group), sub
    enabled = await bot.command(p.ADMIN, "enable", [p.option("pack", "demo")], group="pack")  # by id, as documented
    assert "enabled" in enabled.text(), enabled.text()
    assert "demo" in await suggested(bot, "disable")  # switched on here: now it is this server's to see


async def test_a_mistyped_pack_id_lists_only_the_packs_seen_here(bot: Harness) -> None:
    await hand_demo_to(bot.service, "discord:800000000000000999")  # another server's pack, not enabled here
    for sub in ("enable", "disable", "remove"):
        refused = await bot.command(p.ADMIN, sub, [p.option("pack", "dmeo")], group="pack")
        assert "There is no pack `dmeo`" in refused.text(), refused.text()
        assert "`demo`" not in refused.text(), (sub, refused.text())
