"""What discord.py's parse of a click costs the bot: with the clicked message as a `Message`, and kept as sent.

A click's INTERACTION_CREATE carries the whole message clicked (its embed, its rows of buttons, its
author). discord.py builds a `Message` of it for every component interaction; the bot reads only
whether there is one and, to page, its components' ids (`bot/adapters/discord/origin.py`,
`keep_clicked_raw`). This runs discord.py's own parser over the same click, a rendered quiz item
(an embed and seven buttons, as the bot posts one) as its message, in blocks that alternate the two:
the parser as discord.py has it, and wrapped by `keep_clicked_raw`. The event goes nowhere (the
state's `dispatch` is a no-op), so what is timed is the parse alone.

Prints this process's CPU per parse for each block, then the medians. Not a test: figures depend on
the machine and on what else runs on it (the load average is printed).

    .venv/bin/python bench/discord_click_parse_bench.py [--clicks 3000] [--blocks 5]
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import discord

from bot.adapters.discord.api import message_payload
from bot.adapters.discord.origin import keep_clicked_raw
from bot.adapters.discord.render import render
from bot.core.replies import Button, Message, Text, Tone
from tests.discord import payloads as p
from tests.discord.fake_discord import BOT_USER


def click_payload() -> dict[str, Any]:
    """A click on a choice of a posted item, with that item as Discord sends it back."""
    buttons = tuple(Button(f"qz:s1:3:choose:{i}", letter) for i, letter in enumerate("ABCD"))
    item = Message(
        kind="item", title="Question 3 of 20",
        parts=(Text("Which call makes a tensor record the operations done on it, so that `backward()` fills its `.grad`?"),),
        rows=(buttons, (Button("qz:s1:3:hint", "Hint"), Button("qz:s1:3:skip", "Skip"), Button("qz:s1:3:stop", "Stop", "danger"))),
        footer="Bench · Autograd", tone=Tone.SUCCESS, session_id="s1", position=3,
    )  # fmt: skip
    body = message_payload(render(item), edit=False)
    message = {
        "id": "1300000000000000001", "channel_id": p.CHANNEL_ID, "type": 0, "content": "", "author": BOT_USER,
        "embeds": body.get("embeds", []), "components": body.get("components", []), "attachments": [], "mentions": [],
        "mention_roles": [], "mention_everyone": False, "pinned": False, "tts": False,
        "timestamp": datetime.now(UTC).isoformat(), "edited_timestamp": None, "flags": 0,
        "webhook_id": str(p.APP_ID), "application_id": str(p.APP_ID),
    }  # fmt: skip
    return p.interaction(3, p.component("qz:s1:3:choose:1", 2), p.ALICE, message=message)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clicks", type=int, default=3000, help="parses per block")
    parser.add_argument("--blocks", type=int, default=5, help="blocks of each way, alternating")
    args = parser.parse_args()

    client = discord.Client(intents=discord.Intents.none(), max_messages=None)
    state = client._connection
    state.dispatch = lambda *a, **k: None  # type: ignore[method-assign]
    state.user = discord.ClientUser(state=state, data=BOT_USER)  # type: ignore[arg-type]
    as_message = dict(state.parsers)
    kept = dict(state.parsers)
    keep_clicked_raw(kept)
    ways = {"discord.py's Message": as_message["INTERACTION_CREATE"], "kept as sent": kept["INTERACTION_CREATE"]}
    click = click_payload()
    print(f"discord.py {discord.__version__}; {args.clicks} parses a block; load average {os.getloadavg()[0]:.2f}")
    times: dict[str, list[float]] = {name: [] for name in ways}
    for block in range(args.blocks):
        for name, parse in ways.items():
            clicks = [copy.deepcopy(click) for _ in range(args.clicks)]
            began = time.process_time()
            for data in clicks:
                parse(data)
            times[name].append((time.process_time() - began) / args.clicks * 1e6)
            print(f"  block {block + 1}, {name}: {times[name][-1]:.1f} µs a parse")
    for name, values in times.items():
        print(f"{name}: median {statistics.median(values):.1f} µs of CPU a click's parse")


if __name__ == "__main__":
    main()
