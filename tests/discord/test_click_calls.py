"""A click's callback and follow-up go out as discord.py would send them, without its message objects (`api.py`)."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from discord.http import handle_message_parameters

from bot.adapters.discord.api import message_payload
from bot.adapters.discord.origin import message_ids
from bot.adapters.discord.render import render
from bot.core.replies import Button, Message, Text, Tone

from . import payloads as p
from .conftest import Harness


def _item() -> Message:
    return Message(
        kind="item", title="Question 1 of 2", parts=(Text("Which flag makes a tensor track its operations?"),),
        rows=((Button("q:s1:0:choose:0", "A"), Button("q:s1:0:stop", "Stop", "danger")),),
        footer="Autograd", tone=Tone.SUCCESS, session_id="s1", position=0,
    )  # fmt: skip


def test_the_bodies_are_the_ones_discord_py_builds() -> None:
    rendered = render(_item())
    mentions = discord.AllowedMentions.none()
    for ephemeral in (False, True):
        flags = discord.MessageFlags(ephemeral=True) if ephemeral else discord.utils.MISSING
        with handle_message_parameters(
            embeds=rendered.embeds, view=rendered.view, flags=flags, previous_allowed_mentions=mentions
        ) as theirs:
            expected = {k: v for k, v in theirs.payload.items() if k != "tts"}  # false: Discord's default
        assert message_payload(rendered, edit=False, ephemeral=ephemeral) == expected
    rendered.view = None  # an edit that leaves no controls removes the old ones
    with handle_message_parameters(embeds=rendered.embeds, view=None, previous_allowed_mentions=mentions) as theirs:
        expected = {k: v for k, v in theirs.payload.items() if k != "tts"}
    assert message_payload(rendered, edit=True) == expected
    assert expected["components"] == []


async def test_a_click_asks_nothing_back_and_its_next_item_can_still_be_edited(bot: Harness) -> None:
    start = await bot.command(p.ALICE, "start", [p.option("count", 2)])
    clicked = await bot.click(p.ALICE, start.item(), "Skip")
    assert clicked.kind == 7  # the clicked item is edited in place, as the callback's answer
    assert "with_response" not in clicked.callback.query  # Discord sends nothing back for the bot to parse
    assert "Skipped" in clicked.text()
    [followup] = clicked.followups()
    assert followup.query.get("wait") == "1" and followup.message_id is not None
    assert "Question 2 of 2" in str(bot.fake.messages[followup.message_id]["embeds"][0]["title"])
    # The follow-up's id, read from the JSON Discord returned, is where a command finds the item to mark.
    skipped = await bot.command(p.ALICE, "skip")
    [edit] = skipped.edits()
    assert edit.path.endswith(f"/messages/{followup.message_id}")
    assert all(c["disabled"] for row in edit.body["components"] for c in row["components"])
    bot.assert_all_acknowledged()


async def test_a_click_builds_no_message_object_yet_edits_the_clicked_message_and_pages(
    bot: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """discord.py parses no `Message` of the clicked message; its payload still tells a click on a message and its ids."""
    built: list[object] = []

    class Watched(discord.Message):
        def __init__(self, **kwargs: Any) -> None:
            built.append(kwargs["data"].get("id"))
            super().__init__(**kwargs)

    monkeypatch.setattr(discord.interactions, "Message", Watched)  # where `Interaction` builds the clicked message
    start = await bot.command(p.ALICE, "start", [p.option("count", 2)])
    item = start.item()
    clicked = await bot.click(p.ALICE, item, "Skip")
    assert clicked.kind == 7 and "Skipped" in clicked.text()  # a click on a message: that message is edited in place
    assert built == []
    assert clicked.payload["message"]["id"] == item["id"] and "quizbot_clicked" not in clicked.payload["data"]  # left as sent
    [followup] = clicked.followups()
    second = bot.fake.messages[followup.message_id]
    # A step button is honoured only on the message showing the current item: its ids come from the payload.
    shown = {**second, "components": [*second["components"], {"type": 1, "components": [
        {"type": 2, "style": 2, "label": "Next ▶", "custom_id": f"qzp:{session_of(second)}:1"}]}]}  # fmt: skip
    paged = await bot.click(p.ALICE, shown, "Next ▶")
    assert paged.kind == 7 and paged.data["embeds"][0]["title"] == "Question 2 of 2"
    elsewhere = await bot.click(p.ALICE, {**shown, "components": shown["components"][-1:]}, "Next ▶")
    assert "already answered" in elsewhere.text()  # none of the current item's controls on it: a stale step
    assert built == []
    bot.assert_all_acknowledged()


def session_of(message: dict[str, Any]) -> str:
    ids = [c["custom_id"] for row in message["components"] for c in row["components"] if c.get("custom_id")]
    return ids[0].split(":")[1]


def test_a_message_payloads_ids_are_read_at_any_depth_and_odd_shapes_are_passed_over() -> None:
    payload = {"components": [
        {"type": 1, "components": [{"type": 2, "custom_id": "qz:a"}, {"type": 2, "url": "https://example.com"}]},
        {"type": 17, "components": [{"type": 9, "accessory": {"type": 2, "custom_id": "qz:b"}, "components": []},
                                    {"type": 18, "component": {"type": 3, "custom_id": "qz:c"}}]},
        {"type": 1, "components": 7}, "text", None, {"type": 2, "custom_id": 5},
    ]}  # fmt: skip
    assert message_ids(payload) == {"qz:a", "qz:b", "qz:c"}
    assert message_ids(None) == set() and message_ids({"components": "qz:x"}) == set()
