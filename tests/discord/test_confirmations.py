"""A confirmation's buttons do not outlive the choice: the prompt is edited into its outcome (issue 23, item 8).

Discord answers a click with an update of the clicked message (interaction response type 7, or an
edit of the original after a deferral); a second press on a stale copy gets a clear private note.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from bot.storage.privacy import PrivacyStore
from tests.conftest import hand_demo_to

from . import payloads as p
from .conftest import Answer, BotRunner, Harness
from .test_admin import load

GIFT = Path(__file__).parents[1] / "fixtures" / "import" / "pytorch-gift.txt"


@pytest.fixture
async def bot(start_bot: BotRunner) -> Harness:
    harness = await start_bot.start()
    harness.service.my_data.store = PrivacyStore(start_bot.opened[-1][1].engine)  # as bot/app.py wires it
    return harness


def edited_in_place(answer: Answer, prompt: dict[str, Any], bot: Harness) -> str:
    """Check the click edited the prompt itself (no new message) and left no component; return its text."""
    assert answer.kind in (6, 7), answer.kind
    assert not answer.followups() and not [c for c in answer.calls if c.method == "POST" and "/messages" in c.path]
    stored = bot.fake.messages[prompt["id"]]
    assert stored["components"] == [], stored["components"]
    return "\n".join(str(e.get("description", "")) + str(e.get("title", "")) for e in stored["embeds"])


async def test_removing_a_pack_edits_the_prompt_and_a_stale_press_is_told(bot: Harness) -> None:
    await hand_demo_to(bot.service, f"discord:{p.GUILD_ID}")  # a server removes only its own packs
    asked = await bot.command(p.ADMIN, "remove", [p.option("pack", "demo")], group="pack")
    prompt = asked.stored()[-1]
    stale = copy.deepcopy(prompt)  # what a second window still shows
    done = await bot.click(p.ADMIN, prompt, "Remove demo")
    assert done.kind == 7  # the update-message response
    assert "Pack `demo` was removed" in edited_in_place(done, prompt, bot)
    again = await bot.click(p.ADMIN, stale, "Remove demo")
    assert "not loaded any more (it was removed already); nothing was changed" in again.text()
    kept = await bot.click(p.ADMIN, stale, "Keep it")
    assert "removed already" in kept.text()
    bot.assert_all_acknowledged()


async def test_keeping_a_pack_edits_the_prompt(bot: Harness) -> None:
    await hand_demo_to(bot.service, f"discord:{p.GUILD_ID}")
    asked = await bot.command(p.ADMIN, "remove", [p.option("pack", "demo")], group="pack")
    prompt = asked.stored()[-1]
    kept = await bot.click(p.ADMIN, prompt, "Keep it")
    assert "Nothing was changed: `demo` stays." in edited_in_place(kept, prompt, bot)
    assert "demo" in [i.id for i in await bot.service.enabled_packs_all()]


async def test_a_preview_is_edited_into_the_loaded_pack_and_its_buttons_go(bot: Harness) -> None:
    preview = await load(bot, p.ADMIN, GIFT.name, GIFT.read_bytes())
    prompt = preview.stored()[-1]
    stale = copy.deepcopy(prompt)
    loaded = await bot.click(p.ADMIN, prompt, "Load pytorch-gift")
    assert "Pack `pytorch-gift` v1 added with 13 questions." in edited_in_place(loaded, prompt, bot)
    again = await bot.click(p.ADMIN, stale, "Load pytorch-gift")
    assert "This preview has expired or was already used." in again.text()
    cancel = await bot.click(p.ADMIN, stale, "Cancel")
    assert "expired or was already used" in cancel.text()


async def test_a_cancelled_preview_is_edited_and_cannot_load(bot: Harness) -> None:
    preview = await load(bot, p.ADMIN, GIFT.name, GIFT.read_bytes())
    prompt = preview.stored()[-1]
    stale = copy.deepcopy(prompt)
    cancelled = await bot.click(p.ADMIN, prompt, "Cancel")
    assert "Nothing was loaded" in edited_in_place(cancelled, prompt, bot)
    late = await bot.click(p.ADMIN, stale, "Load pytorch-gift")
    assert "expired or was already used" in late.text()
    assert "pytorch-gift" not in [i.id for i in await bot.service.enabled_packs_all()]


async def test_deleting_my_data_edits_the_prompt_and_a_second_press_says_nothing_is_left(bot: Harness) -> None:
    await bot.command(p.ALICE, "start", [p.option("pack", "demo")])
    asked = await bot.command(p.ALICE, "delete", None, group="my-data")
    prompt = asked.stored()[-1]
    stale = copy.deepcopy(prompt)
    done = await bot.click(p.ALICE, prompt, "Delete everything")
    text = edited_in_place(done, prompt, bot)
    assert "Your data was deleted (" in text and "(0 rows)" not in text
    again = await bot.click(p.ALICE, stale, "Delete everything")
    assert "Nothing to delete: no QuizBot data about you is kept here" in again.text()
    assert "deleted (0 rows)" not in again.text()


async def test_keeping_my_data_edits_the_prompt(bot: Harness) -> None:
    await bot.command(p.ALICE, "start", [p.option("pack", "demo")])
    asked = await bot.command(p.ALICE, "delete", None, group="my-data")
    prompt = asked.stored()[-1]
    kept = await bot.click(p.ALICE, prompt, "Keep it")
    assert "Nothing was deleted." in edited_in_place(kept, prompt, bot)
