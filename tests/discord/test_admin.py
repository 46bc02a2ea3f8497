"""Pack administration from Discord: /quiz pack load with an attachment, enable, disable."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.conftest import hand_demo_to

from . import payloads as p
from .conftest import Answer, BotRunner, Harness

EPHEMERAL = 64

GOOD = """\
pack: extra
title: Extra pack
version: 1
topics:
  - {id: tensors, title: Tensors}
questions:
  - id: one
    type: choice
    topic: tensors
    prompt: Which call makes a tensor of zeros?
    choices:
      - {text: "`torch.zeros(3)`", correct: true}
      - {text: "`torch.empty(3)`"}
"""

BROKEN = GOOD.replace("version: 1", "version: one").replace("    prompt: Which", "    promt: Which")


async def load(bot: Harness, user: p.User, filename: str, data: bytes, *, size: int | None = None) -> Answer:
    url = bot.fake.add_file(filename, data)
    att_id = p.snowflake()
    resolved = {
        "attachments": {att_id: p.attachment(att_id, filename, url, len(data) if size is None else size)}
    }
    options: list[dict[str, Any]] = [{"name": "file", "type": 11, "value": att_id}]
    return await bot.command(user, "load", options, group="pack", resolved=resolved)


def downloads(answer: Answer) -> int:
    return sum(1 for c in answer.calls if c.path.startswith("/attachments/"))


async def test_an_admin_loads_a_good_pack_and_enables_and_disables_it(bot: Harness) -> None:
    answer = await load(bot, p.ADMIN, "extra.yaml", GOOD.encode())
    assert answer.kind == 4 and answer.data["flags"] & EPHEMERAL  # a private "loading" note at once
    assert "Loading the pack" in answer.text()
    final = answer.edits()[-1].body  # the note becomes the result: one message, not two
    assert "Pack `extra` v1 added with 1 question." in final["embeds"][0]["description"]
    assert not answer.followups()
    packs = await bot.command(p.ALICE, "packs")
    assert "`extra` v1" in packs.text() and "`tensors`" in packs.text()
    disabled = await bot.command(p.ADMIN, "disable", [p.option("pack", "extra")], group="pack")
    assert "Pack `extra` is disabled here." in disabled.text()
    refused = await bot.command(p.ALICE, "start", [p.option("pack", "extra")])
    assert "There is no pack `extra`" in refused.text() and "`demo`" in refused.text()
    enabled = await bot.command(p.ADMIN, "enable", [p.option("pack", "extra")], group="pack")
    assert "is enabled here" in enabled.text()
    started = await bot.command(p.ALICE, "start", [p.option("pack", "extra")])
    assert "Which call makes a tensor of zeros?" in started.text()
    newer = await load(bot, p.ADMIN, "extra.yaml", GOOD.replace("version: 1", "version: 2").encode())
    assert "updated v1 → v2" in newer.text()
    bot.assert_all_acknowledged()


async def test_a_pack_whose_key_is_wrong_is_refused_before_anything_is_stored(bot: Harness) -> None:
    data = (Path(__file__).parents[1] / "fixtures" / "wrong_key.yaml").read_bytes()
    answer = await load(bot, p.ADMIN, "wrong_key.yaml", data)
    text = answer.edits()[-1].body["embeds"][0]["description"]
    assert "wrong_key.yaml:5:" in text and "question `adds-up`" in text and "does not run" in text
    started = await bot.command(p.ALICE, "start", [p.option("pack", "wrong-key")])
    assert "There is no pack `wrong-key`" in started.text()


async def test_a_broken_pack_gets_its_problems_with_file_and_line(bot: Harness) -> None:
    answer = await load(bot, p.ADMIN, "broken.yaml", BROKEN.encode())
    text = answer.text()
    assert "The pack has 2 problems" in text  # the missing `prompt` folds into the misspelt `promt`
    assert re.search(r"broken\.yaml:3:\d+: version", text)
    assert re.search(r"broken\.yaml:10:\d+: .*unknown key `promt`: did you mean `prompt`\?", text)
    packs = await bot.command(p.ALICE, "packs")
    assert "extra" not in packs.text()  # nothing changed


async def test_a_member_without_manage_server_may_not_load_packs(bot: Harness) -> None:
    answer = await load(bot, p.BOB, "extra.yaml", GOOD.encode())
    assert "Only admins may load packs." in answer.text()
    assert downloads(answer) == 0
    toggled = await bot.command(p.BOB, "disable", [p.option("pack", "demo")], group="pack")
    assert "Only admins may enable or disable packs." in toggled.text()
    bot.assert_all_acknowledged()


async def test_quizbot_admins_may_load_without_manage_server(start_bot: BotRunner) -> None:
    bot = await start_bot.start(admins=frozenset({f"discord:{p.BOB.id}"}))
    answer = await load(bot, p.BOB, "extra.yaml", GOOD.encode())
    assert "Pack `extra` v1 added" in answer.text()


async def test_the_attachment_must_be_yaml_or_zip_and_not_too_large(bot: Harness) -> None:
    wrong = await load(bot, p.ADMIN, "notes.pdf", b"hello")
    assert "`.yaml` or `.zip`" in wrong.text()
    huge = await load(bot, p.ADMIN, "huge.zip", b"PK", size=50 * 1024 * 1024)
    assert "at most 5 MB" in huge.text()
    assert downloads(wrong) == downloads(huge) == 0


async def test_the_commands_are_registered_with_admin_and_autocomplete_options(bot: Harness) -> None:
    (sync,) = bot.fake.find("PUT", r"^/applications/\d+/commands$")
    (quiz,) = sync.body
    assert quiz["name"] == "quiz"
    subs = {o["name"]: o for o in quiz["options"]}
    assert set(subs) == {
        "start", "answer", "current", "hint", "skip", "stop", "run", "stats", "packs", "help", "pack", "daily", "remind",
        "my-data", "report", "language",
    } | {"race", "leaderboard", "privacy"}  # the social side: see tests/discord/test_race.py
    daily = {o["name"]: o for o in subs["daily"]["options"]}
    assert [c["value"] for c in daily["action"]["choices"]] == ["set", "show", "off", "now", "settings"]
    assert daily["channel"]["type"] == 7 and daily["timezone"]["autocomplete"]
    start = {o["name"]: o for o in subs["start"]["options"]}
    assert start["pack"]["autocomplete"] and start["topic"]["autocomplete"]
    assert [c["value"] for c in start["difficulty"]["choices"]] == ["easy", "medium", "hard"]
    assert (start["count"]["min_value"], start["count"]["max_value"]) == (1, 50)
    pack = {o["name"]: o for o in subs["pack"]["options"]}
    assert subs["pack"]["type"] == 2 and set(pack) == {"load", "enable", "disable", "remove"}
    assert pack["load"]["options"][0]["type"] == 11  # an attachment


async def test_autocomplete_offers_packs_and_the_chosen_packs_topics(bot: Harness) -> None:
    answer = await bot.feed(p.interaction(4, p.autocomplete("start", "pack", "de"), p.ALICE))
    assert answer.kind == 8
    assert answer.data["choices"] == [{"name": "demo", "value": "demo"}]
    topics = await bot.feed(
        p.interaction(4, p.autocomplete("start", "topic", "", [p.option("pack", "demo")]), p.ALICE)
    )
    assert topics.data["choices"] == [{"name": "basics", "value": "basics"}]


async def test_discord_texts_speak_discord(bot: Harness) -> None:
    await hand_demo_to(bot.service, f"discord:{p.GUILD_ID}")  # a server removes only its own packs
    refused = await bot.command(p.BOB, "disable", [p.option("pack", "demo")], group="pack")
    text = refused.text()
    assert "Admins are members with the Manage Server permission" in text and "`discord:<user id>`" in text
    assert "Slack" not in text and "slack:" not in text and "workspace" not in text
    asked = await bot.command(p.ADMIN, "remove", [p.option("pack", "demo")], group="pack")
    assert "Remove the pack `demo` from every server this bot serves?" in asked.text()
    shown = (await bot.command(p.ALICE, "help")).text()
    assert "`/quiz daily action:set`, `/quiz daily action:show`, `/quiz daily action:off`, `/quiz daily action:now`" in shown
    assert "/quiz daily show" not in shown and "/quiz daily now" not in shown
    assert "a code block that starts with `` ```python `` on its own line" in shown


async def test_starting_a_disabled_pack_during_a_quiz_is_refused_before_asking(bot: Harness) -> None:
    await bot.command(p.ALICE, "start", [p.option("pack", "demo")])
    await bot.command(p.ADMIN, "disable", [p.option("pack", "demo")], group="pack")
    again = await bot.command(p.ALICE, "start", [p.option("pack", "demo")])
    assert "No packs are enabled here" in again.text() and "Resume" not in again.text()
    assert not any(body.get("components") for body in again.bodies())
