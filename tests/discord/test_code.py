"""Code: /quiz run, code blocks and .py files in the quiz's thread or a DM, and output too long for Discord."""

from __future__ import annotations

from typing import Any

import pytest

from . import payloads as p
from .conftest import Harness

RIGHT = "total = sum(range(1, 11))\nprint(total)\n"
CUT = "cut to fit Discord's limits"


async def start_code_item(bot: Harness, **where: Any) -> dict[str, Any]:
    start = await bot.command(
        p.ALICE, "start", [p.option("pack", "demo"), p.option("difficulty", "hard")], **where
    )
    item = start.item()
    assert "Define `total`" in item["embeds"][0]["description"]
    return item


async def test_run_a_one_liner_a_form_and_a_file(bot: Harness) -> None:
    answer = await bot.command(p.ALICE, "run", [p.option("code", "print('hello' * 2)")])
    assert answer.kind == 5 and answer.data["flags"] & 64  # deferred at once, privately
    assert "```\nhellohello\n```" in answer.text()
    assert " ms · " in answer.text()
    form = await bot.command(p.ALICE, "run")
    assert form.kind == 9 and form.data["custom_id"] == "qzr:run"
    ran = await bot.submit(p.ALICE, "qzr:run", "for i in range(3):\n    print(i)")
    assert ran.kind == 5 and "```\n0\n1\n2\n```" in ran.text()
    url = bot.fake.add_file("snippet.py", b"print(6 * 7)\n")
    att = p.snowflake()
    resolved = {"attachments": {att: p.attachment(att, "snippet.py", url, 13)}}
    from_file = await bot.command(
        p.ALICE, "run", [{"name": "file", "type": 11, "value": att}], resolved=resolved
    )
    assert "```\n42\n```" in from_file.text()
    bot.assert_all_acknowledged()


async def test_over_long_output_is_cut_with_a_note_not_refused(bot: Harness) -> None:
    wide = await bot.command(p.ALICE, "run", [p.option("code", "print('x' * 10000)")])
    (embed,) = wide.embeds()
    assert len(embed["description"]) <= 4096
    assert CUT in embed["description"]
    assert embed["description"].count("```") % 2 == 0  # the code block is closed again
    tall = await bot.command(p.ALICE, "run", [p.option("code", "for i in range(1000): print(i)")])
    assert "Output cut" in tall.text()
    # FakeDiscord answers 400 to anything over Discord's limits; the fixture fails the test if it had to.


async def test_code_in_the_quiz_thread_counts_and_other_code_does_not(bot: Harness) -> None:
    await start_code_item(bot, channel=p.thread_channel())
    elsewhere = await bot.event(
        "MESSAGE_CREATE",
        p.message_create(p.ALICE, f"```python\n{RIGHT}```", channel_id=p.CHANNEL_ID, guild=True),
    )
    assert elsewhere.calls == []  # a code block in another channel is just a message
    someone = await bot.event(
        "MESSAGE_CREATE",
        p.message_create(p.BOB, f"```python\n{RIGHT}```", channel_id=p.THREAD_ID, guild=True),
    )
    assert someone.calls == []  # Bob has no quiz in this thread
    chat = await bot.event(
        "MESSAGE_CREATE", p.message_create(p.ALICE, "hmm, let me think", channel_id=p.THREAD_ID, guild=True)
    )
    assert chat.calls == []  # talk is not an answer
    url = bot.fake.add_file("total.py", RIGHT.encode())
    file = p.attachment(p.snowflake(), "total.py", url, len(RIGHT))
    answer = await bot.event(
        "MESSAGE_CREATE",
        p.message_create(p.ALICE, "my solution", channel_id=p.THREAD_ID, guild=True, attachments=[file]),
    )
    replies = [c for c in answer.calls if c.path == f"/channels/{p.THREAD_ID}/messages"]
    assert replies and replies[0].body["message_reference"]["message_id"]  # a reply to the learner's message
    assert "Correct" in answer.text() and "2 of 2 tests passed" in answer.text()


async def test_failing_code_by_dm_gets_one_line_per_test(bot: Harness) -> None:
    await start_code_item(bot)
    code = "```python\ntotal = 0\nfor i in range(10):\n    total += i\nprint(total)\n```"
    answer = await bot.event(
        "MESSAGE_CREATE", p.message_create(p.ALICE, code, channel_id=p.ALICE.dm_channel, guild=False)
    )
    text = answer.text()
    assert "Not quite" in text and "0 of 2 tests passed" in text
    assert "❌ `total` must be 55." in text and "❌ Print `total`." in text
    assert "```\n45\n```" in text and "2 attempts left" in text


async def test_code_by_dm_without_a_quiz_says_how_to_start(bot: Harness) -> None:
    code = "```python\nprint(1)\n```"
    answer = await bot.event(
        "MESSAGE_CREATE", p.message_create(p.BOB, code, channel_id=p.BOB.dm_channel, guild=False)
    )
    assert "You have no quiz running" in answer.text()


def dm_bodies(answer: Any, user: p.User) -> list[dict[str, Any]]:
    """The messages the bot sent or edited in `user`'s DM channel while handling one event."""
    where = f"/channels/{user.dm_channel}/messages"
    return [c.body for c in answer.calls if c.method in ("POST", "PATCH") and c.path.startswith(where)]


def text_of(bodies: list[dict[str, Any]]) -> str:
    return "\n".join(
        (b.get("content") or "") + "\n" + "\n".join((e.get("description") or "") + "\n" + "\n".join(
            f"{f['name']}: {f['value']}" for f in e.get("fields") or []) for e in b.get("embeds") or [])
        for b in bodies
    )


async def test_code_sent_by_dm_gets_its_grade_in_the_dm(bot: Harness) -> None:
    await start_code_item(bot)  # in a server channel: the item is a private (ephemeral) message there
    wrong = await bot.event(
        "MESSAGE_CREATE",
        p.message_create(p.ALICE, "```python\ntotal = 45\nprint(total)\n```", channel_id=p.ALICE.dm_channel, guild=False),
    )
    in_dm = dm_bodies(wrong, p.ALICE)
    assert in_dm and in_dm[0]["message_reference"]["message_id"]  # a reply to the learner's code
    shown = text_of(in_dm)
    assert "Not quite" in shown and "0 of 2 tests passed" in shown and "2 attempts left" in shown
    right = await bot.event(
        "MESSAGE_CREATE", p.message_create(p.ALICE, f"```py\n{RIGHT}```", channel_id=p.ALICE.dm_channel, guild=False)
    )
    shown = text_of(dm_bodies(right, p.ALICE))  # the item in the DM now shows the grade, then the summary
    assert "Correct" in shown and "2 of 2 tests passed" in shown and "1 of 1 right" in shown


@pytest.mark.parametrize("fence", ["```py\n", "```Python3\n", "``` python\n", "```\npython\n", "```PY3\r\n"])
async def test_the_language_word_after_the_fence_is_not_run(bot: Harness, fence: str) -> None:
    await start_code_item(bot)
    answer = await bot.event(
        "MESSAGE_CREATE", p.message_create(p.ALICE, f"{fence}{RIGHT}```", channel_id=p.ALICE.dm_channel, guild=False)
    )
    shown = text_of(dm_bodies(answer, p.ALICE))
    assert "Correct" in shown and "NameError" not in shown
