"""Admins load and switch packs from Slack; everyone else is told no, and nothing changes."""

from __future__ import annotations

import io
import json
import zipfile

from bot.core import Actor, QuizService
from tests.conftest import hand_demo_to
from tests.slack.conftest import ADMIN, LEARNER, ROOT, TEAM, Slack, block_text, dm

GOOD = b"""pack: extra
title: Extra pack
version: 1
questions:
  - id: one
    type: choice
    prompt: Pick **one**.
    choices:
      - {text: one, correct: true}
      - {text: two}
"""
BROKEN = GOOD.replace(b"prompt:", b"promt:").replace(b"version: 1", b"version: x")


async def pack_ids(service: QuizService) -> list[str]:
    return [p.id for p in await service.enabled_packs_all()]


async def test_an_admin_loads_a_pack_through_the_modal(slack: Slack, quiz_service: QuizService) -> None:
    status, _ = await slack.command("pack load", user=ADMIN)
    assert status == 200
    assert slack.fake.calls_to("users.info")[-1].args["user"] == ADMIN  # workspace admin, per Slack
    view = slack.last_view()
    element = view["blocks"][0]["element"]
    assert element["type"] == "file_input" and element["filetypes"][:3] == ["yaml", "yml", "zip"]
    status, body = await slack.submit(view, {"pack": []}, user=ADMIN)
    assert "errors" in body  # no file chosen: said in the modal
    file = slack.fake.add_file("extra.yaml", GOOD, filetype="yaml")
    await slack.submit(view, {"pack": [file]}, user=ADMIN)
    assert await pack_ids(quiz_service) == ["demo", "extra"]
    report = block_text(slack.fake.responses[-1]["blocks"])
    assert "Pack `extra` v1 added with 1 question." in report
    assert slack.fake.downloads == [(file["id"], True)]


async def test_the_same_version_again_is_refused_unless_forced(slack: Slack) -> None:
    file = slack.fake.add_file("extra.yaml", GOOD, filetype="yaml")
    await slack.command("pack load", user=ROOT)  # an admin through QUIZBOT_ADMINS: Slack is not asked whether
    assert [c.args["user"] for c in slack.fake.calls_to("users.info")] == [ROOT]  # only once, for the person's language
    view = slack.last_view()
    await slack.submit(view, {"pack": [file]}, user=ROOT)
    await slack.submit(view, {"pack": [file]}, user=ROOT)
    assert "version" in block_text(slack.fake.responses[-1]["blocks"]).lower()
    await slack.submit(view, {"pack": [file], "force": ["force"]}, user=ROOT)
    assert "updated v1 → v1" in block_text(slack.fake.responses[-1]["blocks"])


async def test_a_broken_pack_sent_to_the_dm_reports_its_problems_and_changes_nothing(slack: Slack, quiz_service: QuizService) -> None:
    file = slack.fake.add_file("extra.yaml", BROKEN, filetype="yaml")
    await slack.message("pack load", user=ADMIN, files=[file])
    assert await pack_ids(quiz_service) == ["demo"]
    report = slack.fake.posts(dm(ADMIN))[-1]  # kept in the DM, not a vanishing ephemeral
    text = block_text(report["blocks"])
    assert "The pack has 2 problems" in text  # the missing `prompt` folds into the misspelt `promt`
    assert "extra.yaml:3:10: version" in text and "extra.yaml:7:5: questions[0] (id `one`): unknown key `promt`: did you mean `prompt`?" in text


async def test_a_zip_sent_to_the_dm_loads(slack: Slack, quiz_service: QuizService) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("extra/pack.yaml", GOOD)
    file = slack.fake.add_file("extra.zip", buffer.getvalue(), filetype="zip")
    await slack.message("please pack load this", user=ADMIN, files=[file])
    assert "extra" in await pack_ids(quiz_service)
    assert "added" in block_text(slack.fake.posts(dm(ADMIN))[-1]["blocks"])


async def test_a_non_admin_cannot_load_or_switch_packs(slack: Slack, quiz_service: QuizService) -> None:
    await slack.command("pack load")
    assert slack.fake.views == []
    assert "Only admins may load packs." in block_text(slack.fake.responses[-1]["blocks"])
    file = slack.fake.add_file("extra.yaml", GOOD, filetype="yaml")
    await slack.message("pack load", files=[file])
    assert slack.fake.downloads == []  # refused before the file was fetched
    assert "Only admins may load packs." in block_text(slack.fake.ephemerals[-1]["blocks"])
    await slack.command("pack disable demo")
    assert "Only admins may enable or disable packs." in block_text(slack.fake.responses[-1]["blocks"])
    assert await pack_ids(quiz_service) == ["demo"]


async def test_an_admin_disables_and_enables_a_pack_for_the_workspace(slack: Slack, quiz_service: QuizService) -> None:
    await slack.command("pack disable demo", user=ADMIN)
    assert "Pack `demo` is disabled here." in block_text(slack.fake.responses[-1]["blocks"])
    assert await quiz_service.enabled_packs(Actor("slack", "T0001", LEARNER).scope) == []
    await slack.command("start")
    assert "No packs are enabled here" in block_text(slack.fake.responses[-1]["blocks"])
    await slack.command("pack enable demo", user=ADMIN)
    await slack.command("start demo count:1")
    assert slack.fake.posts(dm(LEARNER))
    await slack.command("pack enable nosuch", user=ADMIN)
    assert "There is no pack `nosuch`. Available: `demo`." in block_text(slack.fake.responses[-1]["blocks"])


CODE_TITLE = b"""pack: spans
title: Spans
version: 1
questions:
  - id: length
    type: choice
    prompt: What does `len('ab')` return?
    choices:
      - {text: "2", correct: true}
      - {text: "1"}
"""


async def test_slack_texts_speak_of_workspaces_and_read_as_written(slack: Slack, quiz_service: QuizService) -> None:
    await hand_demo_to(quiz_service, f"slack:{TEAM}")  # a workspace removes only its own packs
    await slack.command("pack disable demo")
    refusal = block_text(slack.fake.responses[-1]["blocks"])
    assert "Only admins may enable or disable packs. Admins are the workspace's admins and owners" in refusal
    assert "Manage Server" not in refusal and "Discord" not in refusal and "discord:" not in refusal
    await slack.command("pack remove demo", user=ADMIN)
    asked = block_text(slack.fake.responses[-1]["blocks"])
    assert "Remove the pack `demo` from every workspace this bot serves?" in asked and "server" not in asked
    _, body = await slack.command("help")
    shown = block_text(json.loads(body)["blocks"]).replace("\u200b", "")
    assert "starts with ` ```python ` on its own line" in shown and "attach a .py file" in shown

    file = slack.fake.add_file("spans.yaml", CODE_TITLE, filetype="yaml")
    await slack.message("pack load", user=ADMIN, files=[file])
    await slack.command("start spans")
    item = [m for m in slack.fake.posts(dm(LEARNER)) if block_text(m["blocks"]).startswith("Question 1 of 1")][-1]
    await slack.click(dm(LEARNER), item["ts"], label="Skip")
    summary = block_text(slack.fake.posts(dm(LEARNER))[-1]["blocks"])
    assert "1. What does len('ab') return?" in summary  # the code's text kept, no space before the mark


async def test_starting_a_disabled_pack_during_a_quiz_is_refused_before_asking(slack: Slack) -> None:
    await slack.command("start demo count:2")
    await slack.command("pack disable demo", user=ADMIN)
    await slack.command("start demo")
    refusal = slack.fake.responses[-1]
    assert "No packs are enabled here" in block_text(refusal["blocks"])
    assert "Resume" not in block_text(refusal["blocks"]) and not any(b["type"] == "actions" for b in refusal["blocks"])
