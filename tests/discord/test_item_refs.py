"""Where each quiz's item message lives is kept light: no interaction or message object discord.py parsed."""

from __future__ import annotations

import gc
import types
from typing import Any

import aiohttp
import discord
from discord.state import ConnectionState

from . import payloads as p
from .conftest import Harness, components

SHARED = (ConnectionState, aiohttp.ClientSession, discord.Client, types.ModuleType, type, types.FunctionType)


def reachable(start: Any, limit: int = 5000) -> list[Any]:
    """The objects `start` holds, transitively, short of what the whole client shares (its state, its HTTP session)."""
    seen, found, todo = {id(start)}, [], [start]
    while todo and len(found) < limit:
        obj = todo.pop()
        found.append(obj)
        for ref in gc.get_referents(obj):
            if id(ref) not in seen and not isinstance(ref, SHARED):
                seen.add(id(ref))
                todo.append(ref)
    return found


async def test_an_item_message_is_remembered_without_the_interaction_that_sent_it(bot: Harness) -> None:
    start = await bot.command(p.ALICE, "start", [p.option("count", 1)])
    item = start.item()
    refs = bot.client.handler.refs._refs
    assert len(refs) == 1
    held = reachable(next(iter(refs.values())))
    assert not [o for o in held if isinstance(o, (discord.Interaction, discord.Message))]
    skipped = await bot.command(p.ALICE, "skip")  # the light reference still edits the item (its original response)
    assert "Skipped" in skipped.text()
    assert all(c.get("disabled") for c in components(bot.fake.messages[item["id"]]))


async def test_a_click_leaves_nothing_of_discord_py_for_the_garbage_collector(bot: Harness) -> None:
    start = await bot.command(p.ALICE, "start", [p.option("count", 2)])
    item = start.item()
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds unreachable is kept in gc.garbage to look at
    try:
        answer = await bot.click(p.ALICE, item, "Skip")
        gc.collect()
        left = [o for o in gc.garbage if isinstance(o, discord.Interaction | discord.ui.View | discord.ui.Item)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert answer.kind == 7 and answer.item()  # graded in place, and the next item sent
    # the interaction and the two views rendered (the graded item, the next one) were freed as the click ended
    assert not left, sorted({type(o).__name__ for o in left})
