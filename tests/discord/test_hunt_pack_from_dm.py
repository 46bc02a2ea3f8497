"""Hunt: a pack an operator (QUIZBOT_ADMINS) loads in the bot's DM on Discord.

A DM is no server: only the operator may load there, and the pack is the operator's (on in every
server, changed by the operator), not a pack of a server called "dm" that no server lists.
"""

from __future__ import annotations

from . import payloads as p
from .conftest import BotRunner
from .test_admin import GOOD, load


async def test_a_pack_loaded_in_a_dm_is_the_operators_and_on_in_the_server(start_bot: BotRunner) -> None:
    bot = await start_bot.start(admins=frozenset({f"discord:{p.BOB.id}"}))
    url = bot.fake.add_file("extra.yaml", GOOD.encode())
    att_id = p.snowflake()
    resolved = {"attachments": {att_id: p.attachment(att_id, "extra.yaml", url, len(GOOD))}}
    options = [{"name": "file", "type": 11, "value": att_id}]
    loaded = await bot.command(p.BOB, "load", options, group="pack", resolved=resolved, guild=False)
    assert "Pack `extra` v1 added" in loaded.text(), loaded.text()
    packs = await bot.command(p.ALICE, "packs")
    assert "`extra` v1" in packs.text(), packs.text()
    started = await bot.command(p.ALICE, "start", [p.option("pack", "extra")])
    assert "There is no pack" not in started.text(), started.text()
    newer = await load(bot, p.BOB, "extra.yaml", GOOD.replace("version: 1", "version: 2").encode())
    assert "not this server's" in newer.text(), newer.text()  # in a server, the operator acts as its admin
