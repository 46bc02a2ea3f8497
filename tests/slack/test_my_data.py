"""`/quiz my-data export|delete` on Slack: the export as a file in the DM, deletion after a confirmation."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.core import QuizService
from bot.storage.privacy import PrivacyStore
from tests.slack.conftest import ADMIN, LEARNER, STRANGER, Slack, block_text, dm, find_element
from tests.slack.helpers import items


@pytest.fixture(autouse=True)
def personal_data(quiz_service: QuizService, repository: Any) -> None:
    quiz_service.my_data.store = PrivacyStore(repository.engine)  # as bot/app.py wires it


def last_note(slack: Slack) -> dict[str, Any]:
    """The newest private answer: through the command's response_url, or an ephemeral message."""
    return (slack.fake.responses or slack.fake.ephemerals)[-1]


async def practise(slack: Slack, user: str) -> None:
    await slack.command("start demo count:3", user=user)
    item = items(slack, dm(user))[-1]
    await slack.click(dm(user), item["ts"], label="Skip", user=user)


async def export(slack: Slack, text: str = "my-data export", *, user: str = LEARNER) -> dict[str, Any]:
    before = len(slack.fake.shared)
    await slack.command(text, user=user)
    assert len(slack.fake.shared) == before + 1, block_text(last_note(slack)["blocks"])
    upload = slack.fake.shared[-1]
    assert upload["channel"] == dm(user) and upload["name"].endswith(".json")
    document: dict[str, Any] = json.loads(upload["content"])
    return document


async def test_a_learner_gets_their_data_as_a_file_in_the_dm(slack: Slack) -> None:
    await practise(slack, LEARNER)
    document = await export(slack)
    assert document["platform"] == "slack" and document["user_id"] == LEARNER
    assert document["tables"]["sessions"][0]["owner_id"] == LEARNER
    assert "quizbot-data-slack-" in block_text(last_note(slack)["blocks"])


async def test_delete_asks_then_removes_only_the_learners_data(slack: Slack) -> None:
    await practise(slack, LEARNER)
    await practise(slack, STRANGER)
    await slack.command("my-data delete")
    ask = last_note(slack)["blocks"]
    assert "cannot be undone" in block_text(ask)
    element, _ = find_element(ask, label="Delete everything")
    channel = dm(LEARNER)
    slack.fake.messages[(channel, "1700000999.000001")] = {"type": "message", "blocks": ask, "ts": "1700000999.000001"}
    await slack.click(channel, "1700000999.000001", label="Keep it")
    assert "Nothing was deleted" in block_text(slack.fake.message(channel, "1700000999.000001")["blocks"])
    assert (await export(slack))["tables"]["sessions"]
    slack.fake.messages[(channel, "1700000999.000001")]["blocks"] = ask  # a stale copy of the prompt
    await slack.click(channel, "1700000999.000001", action_id=element["action_id"])
    assert "Your data was deleted" in block_text(slack.fake.message(channel, "1700000999.000001")["blocks"])
    assert (await export(slack))["tables"] == {}
    assert (await export(slack, user=STRANGER))["tables"]["sessions"]


async def test_an_admin_acts_for_someone_who_left_and_others_may_not(slack: Slack) -> None:
    await practise(slack, STRANGER)
    uploads = len(slack.fake.shared)
    await slack.command(f"my-data export user:<@{STRANGER}|stranger>")
    assert "Only admins may export or delete another person's data." in block_text(last_note(slack)["blocks"])
    assert len(slack.fake.shared) == uploads
    theirs = await export(slack, f"my-data export <@{STRANGER}|stranger>", user=ADMIN)
    assert theirs["user_id"] == STRANGER and theirs["tables"]["sessions"]
    await slack.command(f"my-data delete user:<@{STRANGER}>", user=ADMIN)
    ask = last_note(slack)["blocks"]
    assert f"<@{STRANGER}>" in block_text(ask)
    slack.fake.messages[(dm(ADMIN), "1700000999.000002")] = {"type": "message", "blocks": ask, "ts": "1700000999.000002"}
    await slack.click(dm(ADMIN), "1700000999.000002", label="Delete everything", user=ADMIN)
    assert "data was deleted" in block_text(slack.fake.message(dm(ADMIN), "1700000999.000002")["blocks"])
    assert (await export(slack, user=STRANGER))["tables"] == {}


async def test_a_wrong_my_data_command_says_how(slack: Slack) -> None:
    status, body = await slack.command("my-data erase")
    assert status == 200 and "my-data export" in body
