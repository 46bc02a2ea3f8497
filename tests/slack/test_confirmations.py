"""A confirmation's buttons do not outlive the choice: the prompt is edited into its outcome (issue 23, item 8).

A prompt a command answered is ephemeral: the click's response_url replaces it (`replace_original`).
A preview posted in the DM is edited with chat.update. A second press on a stale copy gets a clear note.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from bot.core import QuizService
from bot.storage.privacy import PrivacyStore
from tests.conftest import hand_demo_to
from tests.slack.conftest import ADMIN, LEARNER, TEAM, Slack, block_text, dm
from tests.slack.helpers import press_ephemeral

GIFT = Path(__file__).parents[1] / "fixtures" / "import" / "pytorch-gift.txt"


@pytest.fixture(autouse=True)
def personal_data(quiz_service: QuizService, repository: Any) -> None:
    quiz_service.my_data.store = PrivacyStore(repository.engine)  # as bot/app.py wires it


def replaced(slack: Slack, since: int) -> str:
    """The one answer since `since`: a replacement of the clicked message without buttons; its text."""
    answers = slack.fake.responses[since:]
    assert len(answers) == 1 and answers[0]["replace_original"] is True, answers
    blocks = answers[0]["blocks"]
    assert not any(b["type"] == "actions" for b in blocks), blocks
    return block_text(blocks)


def note_since(slack: Slack, since: tuple[int, int]) -> str:
    """The private notes sent since (responses, ephemerals) counts, none replacing the prompt."""
    responses = slack.fake.responses[since[0]:]
    assert not any(r.get("replace_original") for r in responses)
    return "\n".join(block_text(m["blocks"]) for m in (*responses, *slack.fake.ephemerals[since[1]:]))


def counts(slack: Slack) -> tuple[int, int]:
    return len(slack.fake.responses), len(slack.fake.ephemerals)


async def test_removing_a_pack_replaces_the_prompt_and_a_second_press_is_told(slack: Slack, quiz_service: QuizService) -> None:
    await hand_demo_to(quiz_service, f"slack:{TEAM}")  # a workspace removes only its own packs
    await slack.command("pack remove demo", user=ADMIN)
    prompt = copy.deepcopy(slack.fake.responses[-1]["blocks"])
    before = len(slack.fake.responses)
    await press_ephemeral(slack, prompt, "Remove demo", user=ADMIN)
    assert "Pack `demo` was removed" in replaced(slack, before)
    assert not slack.fake.ephemerals  # no new message beside the edited one
    seen = counts(slack)
    await press_ephemeral(slack, prompt, "Remove demo", user=ADMIN)  # a stale copy, pressed again
    assert "not loaded any more (it was removed already); nothing was changed" in note_since(slack, seen)


async def test_keeping_a_pack_replaces_the_prompt(slack: Slack, quiz_service: QuizService) -> None:
    await hand_demo_to(quiz_service, f"slack:{TEAM}")
    await slack.command("pack remove demo", user=ADMIN)
    prompt = slack.fake.responses[-1]["blocks"]
    before = len(slack.fake.responses)
    await press_ephemeral(slack, prompt, "Keep it", user=ADMIN)
    assert "Nothing was changed: `demo` stays." in replaced(slack, before)
    assert [p.id for p in await quiz_service.enabled_packs_all()] == ["demo"]


async def test_deleting_my_data_replaces_the_prompt_and_a_second_press_says_nothing_is_left(slack: Slack) -> None:
    await slack.command("start demo count:2")
    await slack.command("my-data delete")
    prompt = copy.deepcopy(slack.fake.responses[-1]["blocks"])
    before = len(slack.fake.responses)
    await press_ephemeral(slack, prompt, "Delete everything", user=LEARNER)
    text = replaced(slack, before)
    assert "Your data was deleted (" in text and "(0 rows)" not in text
    seen = counts(slack)
    await press_ephemeral(slack, prompt, "Delete everything", user=LEARNER)
    again = replaced(slack, seen[0])  # the stale prompt, too, now says what is left
    assert "Nothing to delete: no QuizBot data about you is kept here" in again and "0 rows" not in again


async def test_keeping_my_data_replaces_the_prompt(slack: Slack) -> None:
    await slack.command("my-data delete")
    prompt = slack.fake.responses[-1]["blocks"]
    before = len(slack.fake.responses)
    await press_ephemeral(slack, prompt, "Keep it", user=LEARNER)
    assert "Nothing was deleted." in replaced(slack, before)


async def test_a_preview_in_the_dm_is_edited_into_the_loaded_pack(slack: Slack, quiz_service: QuizService) -> None:
    file = slack.fake.add_file(GIFT.name, GIFT.read_bytes())
    await slack.message("pack load", user=ADMIN, files=[file])
    preview = slack.fake.posts(dm(ADMIN))[-1]
    stale = copy.deepcopy(preview)
    posted = len(slack.fake.posts(dm(ADMIN)))
    await slack.click(dm(ADMIN), preview["ts"], label="Load pytorch-gift", user=ADMIN)
    now = slack.fake.message(dm(ADMIN), preview["ts"])
    assert "Pack `pytorch-gift` v1 added with 13 questions." in block_text(now["blocks"])
    assert not any(b["type"] == "actions" for b in now["blocks"])
    assert len(slack.fake.posts(dm(ADMIN))) == posted and not slack.fake.ephemerals  # edited, nothing new
    slack.fake.messages[(dm(ADMIN), preview["ts"])] = stale  # a second window still shows the buttons
    seen = counts(slack)
    await slack.click(dm(ADMIN), preview["ts"], label="Cancel", user=ADMIN)
    assert "This preview has expired or was already used." in note_since(slack, seen)
    assert "pytorch-gift" in [p.id for p in await quiz_service.enabled_packs_all()]


async def test_a_preview_from_the_form_is_replaced_on_cancel(slack: Slack, quiz_service: QuizService) -> None:
    await slack.command("pack load", user=ADMIN)
    file = slack.fake.add_file(GIFT.name, GIFT.read_bytes())
    await slack.submit(slack.last_view(), {"pack": [file]}, user=ADMIN)
    preview = copy.deepcopy(slack.fake.responses[-1]["blocks"])
    before = len(slack.fake.responses)
    await press_ephemeral(slack, preview, "Cancel", user=ADMIN)
    assert "Nothing was loaded" in replaced(slack, before)
    seen = counts(slack)
    await press_ephemeral(slack, preview, "Load pytorch-gift", user=ADMIN)
    assert "expired or was already used" in note_since(slack, seen)
    assert "pytorch-gift" not in [p.id for p in await quiz_service.enabled_packs_all()]
