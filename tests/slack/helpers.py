"""Play the demo pack's items through Slack as a learner would."""

from __future__ import annotations

from typing import Any

from tests.slack.conftest import LEARNER, TEAM, Slack, block_text, dm, find_element

SOLUTION = "total = sum(range(1, 11))\nprint(total)\n"
WRONG = "total = sum(range(1, 10))\nprint(total)\n"

KINDS = {
    "Which flag makes PyTorch": "choice",
    "Complete the code so it prints 8": "blanks",
    "What does this print": "short",
    "Which of these are Python numbers": "multi",
    "Define `total`": "code",
}


def is_item(message: dict[str, Any]) -> bool:
    first = message["blocks"][0] if message["blocks"] else {}
    return first.get("type") == "header" and first["text"]["text"].startswith(("Question ", "Frage ", "Pregunta "))


def items(slack: Slack, channel: str) -> list[dict[str, Any]]:
    return [m for m in slack.fake.posts(channel) if is_item(m)]


def kind_of(message: dict[str, Any]) -> str:
    text = block_text(message["blocks"])
    return next(kind for prompt, kind in KINDS.items() if prompt in text)


def has_controls(message: dict[str, Any]) -> bool:
    return any(b["type"] == "actions" for b in message["blocks"])


def feedback_on(slack: Slack, channel: str, ts: str) -> str:
    """The item message as it now reads: the answer's feedback is shown in it, not in a new message."""
    return block_text(slack.fake.message(channel, ts)["blocks"])


def posted_after(slack: Slack, channel: str, ts: str) -> list[dict[str, Any]]:
    return [m for m in slack.fake.posts(channel) if m["ts"] > ts]


async def answer_right(slack: Slack, channel: str, ts: str, *, user: str = LEARNER) -> str:
    """Answer the item posted at `ts` correctly through its controls; return its kind."""
    kind = kind_of(slack.fake.message(channel, ts))
    if kind == "choice":
        await slack.click(channel, ts, label="A", user=user)
    elif kind == "multi":
        await slack.click(channel, ts, label="Select all that apply", values=["0", "1"], user=user)
        await slack.click(channel, ts, label="Check", user=user)
    elif kind == "blanks":
        await slack.click(channel, ts, label="Blank 1", values=["0"], user=user)
        await slack.click(channel, ts, label="Blank 2", values=["2"], user=user)
        await slack.click(channel, ts, label="Check", user=user)
    else:
        await slack.click(channel, ts, label="Answer", user=user)
        view = slack.last_view()
        await slack.submit(view, {"answer": "6" if kind == "short" else SOLUTION}, user=user)
    return kind


async def press_ephemeral(slack: Slack, blocks: list[dict[str, Any]], label: str, *, user: str) -> None:
    """Press a button of an ephemeral message (a command's answer), as Slack reports that click."""
    element, block_id = find_element(blocks, label=label)
    channel = dm(user)
    payload = {
        "type": "block_actions",
        "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": TEAM},
        "api_app_id": "A0001",
        "token": "gIkuvaNzQIHg97ATvDxqgjtO",
        "container": {"type": "message", "message_ts": "1700000300.000001", "channel_id": channel, "is_ephemeral": True},
        "trigger_id": slack.trigger(),
        "team": {"id": TEAM, "domain": "quizbot-test"},
        "channel": {"id": channel, "name": "directmessage"},
        "state": {"values": {}},
        "response_url": slack.fake.response_url(),
        "actions": [
            {"action_id": element["action_id"], "block_id": block_id, "type": "button", "text": element["text"],
             "action_ts": slack.action_ts()}
        ],
    }
    await slack.interact(payload)


async def short_item_form(slack: Slack) -> dict[str, Any]:
    """Start a two-item easy quiz in the DM, skip to its short-answer item and open its Answer form; the item."""
    await slack.command("start demo difficulty:easy count:2")
    channel = dm(LEARNER)
    item = items(slack, channel)[-1]
    if kind_of(item) != "short":
        await slack.click(channel, item["ts"], label="Skip")
        item = items(slack, channel)[-1]
    await slack.click(channel, item["ts"], label="Answer")
    return item
