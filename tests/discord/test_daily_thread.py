"""Code blocks under the channel's daily post on Discord, through discord.py and the fake Discord.

A thread started from a message has that message's id, so a message in channel `<post id>` is in
the post's thread; a reply to the post carries a message_reference to it. Either answers the day's
item as the Answer form would. Discord has no ephemeral reply to a message: the feedback goes to
the member's DMs, and their message gets one neutral reaction (never a mark of right or wrong).
"""

from __future__ import annotations

from typing import Any

from bot.adapters.discord.posts import DirectResponder
from bot.storage import DailyRepository
from tests.fakes import FakeClock, LocalRunner

from . import payloads as p
from .conftest import Answer, DailyBot, Harness
from .fake_discord import BOT_USER, FakeDiscord

RIGHT = "total = sum(range(1, 11))\nprint(total)\n"
WRONG = "total = sum(range(1, 10))\nprint(total)\n"
CAROL = p.User("500000000000000004", "Carol")
DAVE = p.User("500000000000000005", "Dave")


def daily_set(**values: Any) -> list[dict[str, Any]]:
    options = [p.option("action", "set")]
    for name, value in values.items():
        options.append({"name": name, "type": 10, "value": value} if isinstance(value, float) else p.option(name, value))
    return options


async def send(bot: Harness, user: p.User | None, content: str, *, channel_id: str, reply_to: str | None = None) -> Answer:
    """A member's message (or the bot's own, with no user) as the gateway delivers it."""
    payload = p.message_create(user or p.ALICE, content, channel_id=channel_id, guild=True)
    if user is None:
        payload["author"] = BOT_USER
    if reply_to is not None:
        payload["type"] = 19
        payload["message_reference"] = {"message_id": reply_to, "channel_id": channel_id, "guild_id": p.GUILD_ID}
    return await bot.event("MESSAGE_CREATE", payload)


def dms(answer: Answer, user: p.User) -> str:
    """What the bot sent to the user's DM channel while handling the event."""
    bodies = [c.body for c in answer.calls if c.method == "POST" and c.path == f"/channels/{user.dm_channel}/messages"]
    return "\n".join(str(b) for b in bodies)


def public(answer: Answer, *channels: str) -> list[Any]:
    return [c for c in answer.calls if c.method == "POST" and c.path in {f"/channels/{ch}/messages" for ch in channels}]


async def test_code_blocks_in_the_daily_posts_thread_and_replies_are_answers(
    daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock, runner: LocalRunner
) -> None:
    bot, wired, _, repository = daily_bot
    done = await bot.command(
        p.ADMIN, "daily", daily_set(time="11:00", timezone="Europe/Berlin", pack="demo", difficulty="hard", reveal_after_hours=2.0)
    )
    assert "Daily question set" in done.text()
    clock.advance(hours=1)
    start = len(fake.calls)
    await wired.scheduler.tick()
    [posted] = [c for c in fake.calls[start:] if c.method == "POST" and c.path == f"/channels/{p.CHANNEL_ID}/messages"]
    post = fake.messages[posted.message_id]
    assert "Define `total`" in post["embeds"][0]["description"]
    assert "A code block sent in this post's thread counts too" in post["embeds"][0]["description"]
    thread = post["id"]  # the thread a member starts from the post

    alice = await send(bot, p.ALICE, f"mine:\n```python\n{RIGHT}```", channel_id=thread)
    bob = await send(bot, p.BOB, f"```py\n{WRONG}```", channel_id=thread)
    assert "Right! Your answer is counted" in dms(alice, p.ALICE) and "2 of 2 tests passed" in dms(alice, p.ALICE)
    assert "Not quite. 2 attempts left." in dms(bob, p.BOB) and "❌ `total` must be 55." in dms(bob, p.BOB)
    assert "Right!" not in dms(bob, p.BOB) and dms(alice, p.BOB) == dms(bob, p.ALICE) == ""
    assert public(alice, thread, p.CHANNEL_ID) == public(bob, thread, p.CHANNEL_ID) == []  # nothing said in public
    for answer in (alice, bob):
        assert (thread, answer.payload["id"], DirectResponder.SENT) in fake.reactions  # the same mark, right or wrong
    assert [r.code for r in runner.requests] == [RIGHT.rstrip("\n"), WRONG.rstrip("\n")]

    daily = DailyRepository.beside(repository)
    post_id = (await daily.posts("discord", p.CHANNEL_ID))[-1].id
    answers = {a.user_id: a for a in await daily.member_answers(post_id)}
    assert (answers[p.ALICE.id].attempts, answers[p.ALICE.id].done, answers[p.ALICE.id].correct) == (1, True, True)
    assert (answers[p.BOB.id].attempts, answers[p.BOB.id].done) == (1, False)
    seen = (await repository.history("discord", p.ALICE.id, ["demo"]))[("demo", "q-code")]
    assert seen.attempts == 1 and seen.last_correct and seen.card  # counted in progress and the review card

    # Talk, and the bot's own messages, are not answers.
    chat = await send(bot, p.BOB, "close, but not quite", channel_id=thread)
    own = await send(bot, None, f"```python\n{WRONG}```", channel_id=thread)
    assert chat.calls == [] and own.calls == []

    # Bob's last two attempts, one of them as a reply to the post in the channel: 2 answered, 1 right.
    await send(bot, p.BOB, f"```\n{WRONG}```", channel_id=p.CHANNEL_ID, reply_to=post["id"])
    last = await send(bot, p.BOB, f"```\n{WRONG}```", channel_id=thread)
    assert "that was your last attempt" in dms(last, p.BOB)
    assert answers[p.BOB.id].attempts + 2 == (await daily.member_answer(post_id, p.BOB.id)).attempts  # type: ignore[union-attr]
    clock.advance(seconds=10)
    start = len(fake.calls)
    await wired.scheduler.tick()
    [tally] = [c for c in fake.calls[start:] if c.method == "PATCH" and c.path.endswith(f"/messages/{post['id']}")]
    assert "2 people have answered · 1 right" in tally.body["embeds"][0]["footer"]["text"]

    # A second block after a right answer is neither graded nor scored again.
    graded = len(runner.requests)
    again = await send(bot, p.ALICE, f"```python\n{WRONG}```", channel_id=thread)
    assert "You already answered today's question" in dms(again, p.ALICE)
    assert len(runner.requests) == graded
    assert (await repository.history("discord", p.ALICE.id, ["demo"]))[("demo", "q-code")].attempts == 1

    # A member whose DMs are closed is told in the thread where to answer, and nothing about the grade.
    fake.fail("POST", rf"^/channels/{DAVE.dm_channel}/messages$", 403, {"message": "Cannot send messages to this user", "code": 50007})
    closed_dms = await send(bot, DAVE, f"```python\n{WRONG}```", channel_id=thread)
    [note] = public(closed_dms, thread)
    assert "could not send you a direct message" in str(note.body) and "Not quite" not in str(note.body)
    assert str(note.body["message_reference"]["message_id"]) == closed_dms.payload["id"]

    # After the reveal, a block gets "this question closed", privately.
    clock.advance(hours=2)
    await wired.scheduler.tick()
    late = await send(bot, CAROL, f"```python\n{RIGHT}```", channel_id=thread)
    assert "This question closed." in dms(late, CAROL) and public(late, thread, p.CHANNEL_ID) == []
    assert await daily.member_answer(post_id, CAROL.id) is None


async def test_a_block_under_a_choice_item_gets_the_forms_note_and_other_threads_are_talk(
    daily_bot: DailyBot, fake: FakeDiscord, runner: LocalRunner
) -> None:
    bot, *_ = daily_bot
    await bot.command(p.ADMIN, "daily", daily_set(time="10:00", timezone="Europe/Berlin", pack="study"))
    start = len(fake.calls)
    await bot.command(p.ADMIN, "daily", [p.option("action", "now")])
    [posted] = [c for c in fake.calls[start:] if c.method == "POST" and c.path == f"/channels/{p.CHANNEL_ID}/messages"]
    post = fake.messages[posted.message_id]
    assert "A code block sent in this post's thread" not in post["embeds"][0]["description"]
    refused = await send(bot, p.ALICE, "```python\nrequires_grad=True\n```", channel_id=post["id"])
    assert "This question is answered with its buttons or menus." in dms(refused, p.ALICE)
    assert runner.requests == []
    elsewhere = await send(bot, p.ALICE, f"```python\n{RIGHT}```", channel_id=p.THREAD_ID)
    reply_elsewhere = await send(bot, p.ALICE, f"```python\n{RIGHT}```", channel_id=p.CHANNEL_ID, reply_to=p.snowflake())
    assert elsewhere.calls == [] and reply_elsewhere.calls == []
