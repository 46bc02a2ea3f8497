"""A channel race, the leaderboard and the stats picture through discord.py, against the fake Discord."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from bot.adapters.discord import create_client
from bot.adapters.discord.api import use_api
from bot.app import App
from bot.core import QuizService
from bot.core.race import Outbox, RaceService, SocialService
from bot.storage import open_repository
from bot.storage.social import SocialStore
from tests.fakes import FakeClock
from tests.race.helpers import race_pack

from . import payloads as p
from .conftest import Answer, Harness, components, settings_for
from .fake_discord import BOT_TOKEN, FakeDiscord

EPHEMERAL = 64
CAT = p.User("500000000000000004", "Cat")
PNG = b"\x89PNG\r\n\x1a\n"


@dataclass
class RaceBot:
    bot: Harness
    races: RaceService
    clock: FakeClock

    async def settle(self) -> list[dict[str, Any]]:
        """Let round closes started by answers finish; return the channel messages they posted."""
        start = len(self.bot.fake.calls)
        await self.races.drain()
        return [c.body for c in self.bot.fake.calls[start:] if c.method == "POST" and "/channels/" in c.path]


@pytest.fixture
async def racing(fake: FakeDiscord, db_url: str, clock: FakeClock) -> AsyncIterator[RaceBot]:
    repository = await open_repository(db_url)
    store = SocialStore.beside(repository)
    outbox = Outbox()
    races = RaceService(
        repository=repository, store=store, clock=clock, publish=outbox, rng=random.Random(1), timers=False
    )
    service = QuizService(
        repository=repository, runner=None, clock=clock, races=races, social=SocialService(store=store, clock=clock)
    )
    await service.import_pack(race_pack(choices=3, others=False))
    await service.import_pack(race_pack(choices=0, pack_id="kinds"))  # select-all, blanks, short (and code)
    settings = settings_for(fake, db_url)
    use_api(fake.api_url)
    client = create_client(App(settings, repository, service, None, outbox=outbox), settings)
    await client.login(BOT_TOKEN)
    yield RaceBot(Harness(fake, client, service), races, clock)
    await races.aclose()
    await client.close()
    await repository.close()


def embeds_text(bodies: list[dict[str, Any]]) -> str:
    out = []
    for body in bodies:
        for e in body.get("embeds") or []:
            out += [e.get("title") or "", e.get("description") or ""]
            out += [f"{f['name']}: {f['value']}" for f in e.get("fields") or []]
    return "\n".join(out)


def round_message(answer: Answer) -> dict[str, Any]:
    titles = ("Race · round", "Carrera · ronda", "Wettrennen · Runde")
    rounds = [m for m in answer.stored() if any((e.get("title") or "").startswith(titles) for e in m["embeds"])]
    assert rounds, answer.text()
    return rounds[-1]


async def answer_round(race: RaceBot, message: dict[str, Any], picks: dict[p.User, str]) -> None:
    for user, label in picks.items():
        ack = await race.bot.click(user, message, label)
        assert ack.data["flags"] & EPHEMERAL, "an answer is acknowledged privately"
        assert "Your answer is in" in ack.text()


async def test_three_members_race_through_three_rounds_in_the_channel(racing: RaceBot) -> None:
    bot = racing.bot
    start = await bot.command(
        p.ALICE, "start", [p.option("pack", "race-pack"), p.option("rounds", 3), p.option("seconds", 10)], group="race"
    )
    assert start.kind == 4 and not start.data.get("flags", 0) & EPHEMERAL  # the start is public
    assert "A race starts!" in start.text() and "3 rounds" in start.text()
    first = round_message(start)
    assert first["embeds"][0]["title"] == "Race · round 1 of 3"
    assert all(c["custom_id"].startswith("rc:") for c in components(first))

    again = await bot.command(p.BOB, "start", [p.option("pack", "race-pack")], group="race")
    assert again.data["flags"] & EPHEMERAL and "already running" in again.text()

    # Round 1 never closes early (nobody has joined before it): it ends when its time is up.
    await answer_round(racing, first, {p.ALICE: "A", p.BOB: "B", CAT: "A"})
    twice = await bot.click(p.ALICE, first, "B")
    assert twice.data["flags"] & EPHEMERAL and "already answered" in twice.text()
    racing.clock.advance(seconds=11)
    start_calls = len(bot.fake.calls)
    assert await racing.races.tick() == 1
    posted = [c.body for c in bot.fake.calls[start_calls:] if c.method == "POST" and "/channels/" in c.path]
    edits = [c for c in bot.fake.calls[start_calls:] if c.method == "PATCH" and "/channels/" in c.path]
    assert edits and all(c["disabled"] for row in edits[0].body["components"] for c in row["components"])
    reveal = embeds_text(posted)
    assert "Round 1 of 3: the answer" in reveal and "The answer: right " in reveal and "Because " in reveal
    assert "🥇 Alice: +100" in reveal and "🥈 Cat: +90" in reveal and "🥉" not in reveal  # Bob was wrong
    assert "2 of 3 answers right." in reveal and "Race · round 2 of 3" in reveal
    second = bot.fake.messages[next(c.message_id for c in bot.fake.calls[start_calls:] if c.method == "POST" and c.message_id and "round 2" in str(c.body))]

    late = await bot.click(CAT, first, "A")
    assert late.data["flags"] & EPHEMERAL and "Round closed" in late.text()

    # Later rounds close as soon as everyone who joined has answered.
    await answer_round(racing, second, {CAT: "A", p.ALICE: "A", p.BOB: "A"})
    posted = await racing.settle()
    assert "Round 2 of 3: the answer" in embeds_text(posted) and "🥇 Cat" in embeds_text(posted)
    third_id = next(
        c.message_id for c in bot.fake.calls if c.method == "POST" and c.message_id and "round 3 of 3" in str(c.body)
    )
    await answer_round(racing, bot.fake.messages[third_id], {p.BOB: "A", p.ALICE: "C", CAT: "A"})
    final = embeds_text(await racing.settle())
    assert "Race results" in final
    table = final.split("Race results", 1)[1]
    assert "wins with" in table
    assert table.index("Cat") < table.index("Alice") and table.index("Cat") < table.index("Bob")  # Cat: 3 right
    assert "3/3 right" in table

    board = await bot.command(p.BOB, "leaderboard", [p.option("period", "week")])
    assert board.kind == 4 and not board.data.get("flags", 0) & EPHEMERAL
    text = board.text()
    assert "Leaderboard this week" in text
    assert text.index(f"<@{CAT.id}>") < text.index(f"<@{p.ALICE.id}>")  # by points

    hide = await bot.command(CAT, "privacy", [p.option("leaderboard", "off")])
    assert hide.data["flags"] & EPHEMERAL
    assert f"<@{CAT.id}>" not in (await bot.command(p.BOB, "leaderboard")).text()
    bot.assert_all_acknowledged()


async def test_race_refusals_name_the_problem(racing: RaceBot) -> None:
    bot = racing.bot
    few = await bot.command(p.ALICE, "start", [p.option("pack", "race-pack"), p.option("rounds", 5)], group="race")
    assert few.data["flags"] & EPHEMERAL and "has 3 items" in few.text() and "5 rounds" in few.text()
    nothing = await bot.command(p.ALICE, "stop", group="race")
    assert "No race is running" in nothing.text() and "/quiz race start" in nothing.text()
    empty = await bot.command(p.ALICE, "leaderboard")
    assert "Nobody is on the leaderboard this week yet." in empty.text()
    started = await bot.command(p.ALICE, "start", [p.option("pack", "race-pack"), p.option("rounds", 3)], group="race")
    assert "A race starts!" in started.text()
    refused = await bot.command(p.BOB, "stop", group="race")
    assert refused.data["flags"] & EPHEMERAL and "Only Alice" in refused.text()
    stopped = await bot.command(p.ADMIN, "stop", group="race")
    assert not stopped.data.get("flags", 0) & EPHEMERAL and "stopped after 0 of 3 rounds" in stopped.text()


async def test_stats_attach_the_progress_picture_in_an_embed(racing: RaceBot) -> None:
    bot = racing.bot
    stats = await bot.command(p.ALICE, "stats")
    uploads = [c for c in stats.calls if c.files]  # the response, or a follow-up when drawing took long
    assert len(uploads) == 1, "the picture is uploaded with the message"
    name, data = uploads[0].files[0]
    assert data.startswith(PNG) and len(data) < 300 * 1024
    embed = uploads[0].body["embeds"][0] if "embeds" in uploads[0].body else uploads[0].body["data"]["embeds"][0]
    assert embed["image"]["url"] == f"attachment://{name}"
    assert embed.get("description"), "the text stays for screen readers"


def newest_round(fake: FakeDiscord, number: int) -> dict[str, Any]:
    found = [m for m in fake.messages.values() if any(e.get("title") == f"Race · round {number} of 3" for e in m["embeds"])]
    assert found, f"no round {number}"
    return found[-1]


async def test_select_all_blanks_and_short_answers_race_as_in_a_quiz(racing: RaceBot) -> None:
    bot = racing.bot
    start = await bot.command(p.ALICE, "start", [p.option("pack", "kinds"), p.option("rounds", 3)], group="race")
    assert "A race starts!" in start.text()  # the code item is left out: three items, three rounds
    for number in (1, 2, 3):
        message = newest_round(bot.fake, number)
        prompt = message["embeds"][0]["description"]
        if "Pick the numbers." in prompt:
            assert "Check" not in [c.get("label") for c in components(message)]  # the selection is the answer
            done = await bot.click(p.ALICE, message, "Select all that apply", ["0", "1"])
        elif "Fill in." in prompt:
            kept = await bot.click(p.ALICE, message, "Blank 1", ["0"])
            assert kept.data["flags"] & EPHEMERAL and "[1: 4]" in kept.text() and "[2]" in kept.text()
            await bot.click(p.ALICE, message, "Blank 2", ["1"])
            done = await bot.click(p.ALICE, message, "Check")
        else:
            assert "2 + 4?" in prompt
            form = await bot.click(p.ALICE, message, "Answer")
            assert form.kind == 9 and form.data["custom_id"].startswith("rc:")
            done = await bot.submit(p.ALICE, form.data["custom_id"], "6", message=message)
        assert done.data["flags"] & EPHEMERAL and "Your answer is in: #1" in done.text()
        if number == 1:  # time is up; later rounds close once Alice, the only member, has answered
            racing.clock.advance(seconds=31)
            assert await racing.races.tick() == 1
        await racing.settle()
    final = [m for m in bot.fake.messages.values() if any(e.get("title") == "Race results" for e in m["embeds"])]
    assert final and "3/3 right" in embeds_text(final)
    bot.assert_all_acknowledged()


async def test_a_slow_race_start_is_deferred_in_public_and_a_slow_stats_in_private(racing: RaceBot) -> None:
    bot = racing.bot
    bot.client.handler.ack_within = 0.0  # as if the database were slow: acknowledge first, answer after
    start = await bot.command(p.ALICE, "start", [p.option("pack", "race-pack"), p.option("rounds", 3)], group="race")
    assert start.kind == 5 and not start.data.get("flags", 0) & EPHEMERAL
    assert "A race starts!" in start.text() and round_message(start)
    stats = await bot.command(p.BOB, "stats")
    assert stats.kind == 5 and stats.data["flags"] & EPHEMERAL


async def test_the_race_group_leaderboard_and_privacy_are_registered(racing: RaceBot) -> None:
    (sync,) = racing.bot.fake.find("PUT", r"^/applications/\d+/commands$")
    subs = {o["name"]: o for o in sync.body[0]["options"]}
    race = {o["name"]: o for o in subs["race"]["options"]}
    assert subs["race"]["type"] == 2 and set(race) == {"start", "stop"}  # a group: `race` cannot also be a command
    options = {o["name"]: o for o in race["start"]["options"]}
    assert (options["rounds"]["min_value"], options["rounds"]["max_value"]) == (3, 20)
    assert (options["seconds"]["min_value"], options["seconds"]["max_value"]) == (10, 120)
    assert options["pack"]["autocomplete"]
    board = {o["name"]: o for o in subs["leaderboard"]["options"]}
    assert [c["value"] for c in board["period"]["choices"]] == ["week", "month", "all"]
    privacy = subs["privacy"]["options"][0]
    assert privacy["name"] == "leaderboard" and privacy["required"] and [c["value"] for c in privacy["choices"]] == ["on", "off"]


async def test_each_leaderboard_heading_stands_above_its_own_rows(racing: RaceBot) -> None:
    bot = racing.bot
    for user, quizzes in ((p.ALICE, 7), (p.BOB, 1)):  # Alice: 21 answers, on both boards; Bob: 3, on one
        for _ in range(quizzes):
            start = await bot.command(user, "start", [p.option("pack", "race-pack"), p.option("count", 3)])
            item = start.item()
            for _ in range(3):
                answered = await bot.click(user, item, "A")
                item = answered.item() if any("Question" in (e.get("title") or "") for e in answered.embeds()) else item
    board = await bot.command(p.BOB, "leaderboard", [p.option("period", "week")])
    (embed,) = board.embeds()
    assert not embed.get("fields")  # field names cannot show mentions, and fields come after all the text
    lines = [line for line in embed["description"].splitlines() if line]
    points, accuracy = lines.index("**By points**"), lines.index("**By accuracy** (at least 20 answers)")
    assert lines[points + 1] == f"1. <@{p.ALICE.id}> · 210 pts" and lines[points + 2] == f"2. <@{p.BOB.id}> · 30 pts"
    assert lines[accuracy + 1] == f"1. <@{p.ALICE.id}> · 100% of 21"
    assert f"<@{p.BOB.id}>" not in "\n".join(lines[accuracy:])
