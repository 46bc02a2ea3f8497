"""`/quiz pack load` with another tool's file on Slack (form and DM): a preview, then Load or Cancel."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core import QuizService
from tests.slack.conftest import ADMIN, LEARNER, Slack, block_text, dm, find_element
from tests.slack.helpers import items, press_ephemeral

FIXTURES = Path(__file__).parents[1] / "fixtures" / "import"
MOODLE = ("moodle-pytorch-basics-20261130-1412.xml", "moodle-pytorch-basics", 8)
GIFT = ("pytorch-gift.txt", "pytorch-gift", 13)
APKG = ("pytorch-deck.apkg", "pytorch-deck", 4)  # tests/convert/anki_build.py wrote it, as Anki 2.1.50+ does


def last_note(slack: Slack) -> str:
    """The text of the newest private note (an ephemeral message) the bot sent."""
    return block_text(slack.fake.ephemerals[-1]["blocks"])


async def pack_ids(service: QuizService) -> list[str]:
    return [p.id for p in await service.enabled_packs_all()]


async def play_through(slack: Slack, pack_id: str, count: int) -> None:
    """Start a quiz on the pack as a learner and skip through every item to the summary."""
    await slack.command(f"start {pack_id} count:{count}")
    channel = dm(LEARNER)
    for n in range(1, count + 1):
        item = items(slack, channel)[-1]
        assert block_text(item["blocks"]).startswith(f"Question {n} of {count}")
        await slack.click(channel, item["ts"], label="Skip")
    assert "Quiz finished" in block_text(slack.fake.posts(channel)[-1]["blocks"])


@pytest.mark.parametrize(("filename", "pack_id", "count"), [MOODLE, GIFT, APKG])
async def test_the_form_previews_a_converted_file_and_load_stores_it(
    slack: Slack, quiz_service: QuizService, filename: str, pack_id: str, count: int
) -> None:
    await slack.command("pack load", user=ADMIN)
    view = slack.last_view()
    assert {"yaml", "zip", "xml", "txt"} <= set(view["blocks"][0]["element"]["filetypes"])
    file = slack.fake.add_file(filename, (FIXTURES / filename).read_bytes())
    await slack.submit(view, {"pack": [file]}, user=ADMIN)
    preview = slack.fake.responses[-1]["blocks"]
    assert f"Converted {count} items" in block_text(preview) and "line " in block_text(preview)
    assert pack_id not in await pack_ids(quiz_service)
    await press_ephemeral(slack, preview, f"Load {pack_id}", user=ADMIN)
    assert slack.fake.responses[-1]["replace_original"] is True  # the preview itself shows the outcome
    assert f"Pack `{pack_id}` v1 added with {count} questions." in block_text(slack.fake.responses[-1]["blocks"])
    assert pack_id in await pack_ids(quiz_service)
    await play_through(slack, pack_id, count)


@pytest.mark.parametrize(("filename", "pack_id", "count"), [MOODLE, GIFT])
async def test_a_file_sent_to_the_dm_is_previewed_and_cancel_stores_nothing(
    slack: Slack, quiz_service: QuizService, filename: str, pack_id: str, count: int
) -> None:
    file = slack.fake.add_file(filename, (FIXTURES / filename).read_bytes())
    await slack.message("pack load", user=ADMIN, files=[file])
    preview = slack.fake.posts(dm(ADMIN))[-1]
    assert f"Converted {count} items" in block_text(preview["blocks"])
    await slack.click(dm(ADMIN), preview["ts"], label="Cancel", user=ADMIN)
    assert "Nothing was loaded" in block_text(slack.fake.message(dm(ADMIN), preview["ts"])["blocks"])
    assert pack_id not in await pack_ids(quiz_service)
    slack.fake.messages[(dm(ADMIN), preview["ts"])] = preview  # a stale copy of the preview, still with its buttons
    await slack.click(dm(ADMIN), preview["ts"], label=f"Load {pack_id}", user=ADMIN)
    assert "expired or was already used" in last_note(slack)
    assert pack_id not in await pack_ids(quiz_service)  # a cancelled preview cannot be loaded afterwards


async def test_a_file_sent_to_the_dm_loads_on_click_and_plays(slack: Slack, quiz_service: QuizService) -> None:
    filename, pack_id, count = MOODLE
    file = slack.fake.add_file(filename, (FIXTURES / filename).read_bytes())
    await slack.message("pack load", user=ADMIN, files=[file])
    preview = slack.fake.posts(dm(ADMIN))[-1]
    await slack.click(dm(ADMIN), preview["ts"], label=f"Load {pack_id}", user=ADMIN)
    assert f"Pack `{pack_id}` v1 added with {count} questions." in block_text(slack.fake.message(dm(ADMIN), preview["ts"])["blocks"])
    assert pack_id in await pack_ids(quiz_service)
    await play_through(slack, pack_id, count)


async def test_a_malformed_file_gets_its_one_line(slack: Slack, quiz_service: QuizService) -> None:
    broken = b"::Q1:: What is 1+1? {=2 ~3\n\n::Q2:: Fine {T}\n"
    file = slack.fake.add_file("broken.gift", broken)
    await slack.message("pack load", user=ADMIN, files=[file])
    note = slack.fake.posts(dm(ADMIN))[-1]
    text = block_text(note["blocks"])
    assert text.count("broken.gift:") == 1 and "broken.gift:1:" in text
    assert not any(b["type"] == "actions" for b in note["blocks"])
    assert await pack_ids(quiz_service) == ["demo"]


RIGHT_FEEDBACK_GIFT = b"""::sum:: What is 2 + 2? {=four #Yes: two and two make four. ~five #No: count again.}

::truth:: Python lists can grow. {T#No, they can.#Yes: append adds an item.}
"""


async def test_feedback_written_for_the_right_choice_is_shown(slack: Slack, quiz_service: QuizService) -> None:
    file = slack.fake.add_file("right-feedback.gift", RIGHT_FEEDBACK_GIFT)
    await slack.message("pack load", user=ADMIN, files=[file])
    preview = slack.fake.posts(dm(ADMIN))[-1]
    await slack.click(dm(ADMIN), preview["ts"], label="Load right-feedback", user=ADMIN)
    await slack.command("start right-feedback count:2")
    channel = dm(LEARNER)
    seen: list[str] = []
    for _ in range(2):
        item = items(slack, channel)[-1]
        lines = block_text(item["blocks"]).splitlines()
        right = next(line for line in lines if "four" in line or "True" in line)
        await slack.click(channel, item["ts"], label=right.strip("*").split(".")[0])
        seen.append(block_text(slack.fake.message(channel, item["ts"])["blocks"]))
    shown = "\n".join(seen)
    assert shown.count("*Correct!*") == 2
    assert "Yes: two and two make four." in shown and "Yes: append adds an item." in shown
    assert "No: count again." not in shown and "No, they can." not in shown


async def test_a_failing_item_is_listed_and_the_rest_load_with_one_click(slack: Slack, quiz_service: QuizService) -> None:
    filename, pack_id, count = MOODLE
    text = (FIXTURES / filename).read_text(encoding="utf-8")
    broken = text.replace("    return [i * i for i in range(n)]\n</answer>", "    return [i * i for i in range(1, n + 1)]\n</answer>")
    line = text[: text.index('<question type="coderunner">\n    <name>\n      <text>Squares')].count("\n") + 1
    file = slack.fake.add_file(filename, broken.encode())
    await slack.message("pack load", user=ADMIN, files=[file])
    preview = slack.fake.posts(dm(ADMIN))[-1]
    shown = block_text(preview["blocks"])
    assert f"1 of {count} questions failed the proof" in shown
    assert f"{filename}:{line}: question `squares-of-a-tensor`:" in shown
    with pytest.raises(AssertionError):
        find_element(preview["blocks"], label=f"Load {pack_id}")  # all-or-nothing stays impossible here
    await slack.click(dm(ADMIN), preview["ts"], label=f"Load the {count - 1} that pass", user=ADMIN)
    edited = slack.fake.message(dm(ADMIN), preview["ts"])  # the preview becomes what was done, its buttons gone
    note = block_text(edited["blocks"])
    assert not [b for b in edited["blocks"] if b.get("type") == "actions"]
    assert f"Pack `{pack_id}` v1 added with {count - 1} questions." in note
    assert "left out 1 question that failed the proof" in note and "squares-of-a-tensor" in note
    pack = await quiz_service.catalogue.pack(pack_id)
    assert pack is not None and "squares-of-a-tensor" not in [q.id for q in pack.questions]
