"""A channel race, the leaderboard, App Home's rank and the stats picture through Bolt, against the fake Slack."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from bot.adapters.slack import render as bk
from bot.adapters.slack import slack_front_end, web_app
from bot.core import QuizService
from bot.core.race import Outbox, RaceService, SocialService
from bot.storage import SqlRepository
from bot.storage.social import SocialStore
from tests.fakes import FakeClock
from tests.race.helpers import race_pack
from tests.slack.conftest import (
    ADMIN,
    BOT_TOKEN,
    CHANNEL,
    LEARNER,
    ROOT,
    SIGNING_SECRET,
    STRANGER,
    Slack,
    block_text,
    dm,
)
from tests.slack.fake_slack import FakeSlack

PNG = b"\x89PNG\r\n\x1a\n"
MEMBERS = (LEARNER, STRANGER, ADMIN)


@dataclass
class RaceSlack:
    slack: Slack
    races: RaceService
    clock: FakeClock

    @property
    def fake(self) -> FakeSlack:
        return self.slack.fake

    def rounds(self) -> list[tuple[str, dict[str, Any]]]:
        """The race round messages in the channel, as (ts, message), in order."""
        return [
            (ts, m) for (ch, ts), m in self.fake.messages.items()
            if ch == CHANNEL and any(t in block_text(m["blocks"][:1]) for t in ("Race · round", "Wettrennen · Runde"))
        ]

    def channel_text(self, since: int = 0) -> str:
        return "\n".join(block_text(m["blocks"]) for m in self.fake.posts(CHANNEL)[since:])

    async def pick(self, ts: str, user: str, shown: int) -> str:
        """Press the choice button `shown` of a round; return the private note the member got."""
        message = self.fake.message(CHANNEL, ts)
        action = next(
            e["action_id"]
            for b in message["blocks"]
            if b["type"] == "actions"
            for e in b["elements"]
            if e["action_id"].endswith(f":c:{shown}")
        )
        before = len(self.fake.ephemerals)
        await self.slack.click(CHANNEL, ts, action_id=action, user=user)
        notes = [e for e in self.fake.ephemerals[before:] if e["user"] == user]
        assert len(notes) == 1, "each answer gets one private note"
        return block_text(notes[0]["blocks"])

    def last_response(self) -> str:
        return block_text(self.fake.responses[-1]["blocks"])


@pytest.fixture
async def racing(fake: FakeSlack, repository: SqlRepository, clock: FakeClock) -> AsyncIterator[RaceSlack]:
    store = SocialStore.beside(repository)
    outbox = Outbox()
    races = RaceService(
        repository=repository, store=store, clock=clock, publish=outbox, rng=random.Random(1), timers=False
    )
    service = QuizService(
        repository=repository,
        runner=None,
        clock=clock,
        admins=frozenset({f"slack:{ROOT}"}),
        races=races,
        social=SocialService(store=store, clock=clock),
    )
    await service.import_pack(race_pack(choices=3, others=False))
    await service.import_pack(race_pack(choices=0, pack_id="kinds"))  # select-all, blanks, short (and code)
    front_end = slack_front_end(service, token=BOT_TOKEN, api_url=fake.api_url, signing_secret=SIGNING_SECRET, outbox=outbox)
    async with front_end as (front, bolt):
        server = TestServer(web_app(bolt), host="127.0.0.1")
        await server.start_server()
        try:
            async with aiohttp.ClientSession() as http:
                yield RaceSlack(Slack(http, str(server.make_url("/slack/events")), fake, front), races, clock)
                await front.idle()
        finally:
            await server.close()
            await races.aclose()


async def test_three_members_race_through_three_rounds_in_the_channel(racing: RaceSlack) -> None:
    slack, fake = racing.slack, racing.fake
    status, _ = await slack.command("race race-pack 3 10", channel=CHANNEL)
    assert status == 200
    text = racing.channel_text()
    assert "A race starts!" in text and "<@U1LEARNER> started a race: *3 rounds*" in text  # public, in the channel
    [(first_ts, first)] = racing.rounds()
    assert all(e["action_id"].startswith("rc:") for b in first["blocks"] if b["type"] == "actions" for e in b["elements"])

    await slack.command("race race-pack", user=STRANGER, channel=CHANNEL)
    assert "already running" in racing.last_response()  # only to the person who asked

    # Round 1 ends when its time is up (nobody joined before it, so it never closes early).
    assert "Your answer is in: #1" in await racing.pick(first_ts, LEARNER, 0)
    assert "#2" in await racing.pick(first_ts, STRANGER, 1)
    assert "#3" in await racing.pick(first_ts, ADMIN, 0)
    await slack.click(CHANNEL, first_ts, action_id=f"rc:{first_action_race(first)}:0:c:1", user=LEARNER)
    assert "already answered" in block_text(fake.ephemerals[-1]["blocks"])
    posted = len(fake.posts(CHANNEL))
    racing.clock.advance(seconds=11)
    assert await racing.races.tick() == 1
    reveal = racing.channel_text(posted)
    assert "Round 1 of 3: the answer" in reveal and "The answer: right " in reveal
    assert "🥇 <@U1LEARNER>" in reveal and "🥈 <@U3ADMIN>" in reveal and "🥉" not in reveal  # mentions, not &lt;@
    assert "2 of 3 answers right." in reveal
    closed = fake.message(CHANNEL, first_ts)
    assert "(closed)" in block_text(closed["blocks"]) and not any(b["type"] == "actions" for b in closed["blocks"])

    fake.messages[(CHANNEL, first_ts)] = first  # a client that still shows the open round
    late = await slack.click(CHANNEL, first_ts, action_id=f"rc:{first_action_race(first)}:0:c:0", user=STRANGER)
    fake.messages[(CHANNEL, first_ts)] = closed
    assert late[0] == 200 and "Round closed" in block_text(fake.ephemerals[-1]["blocks"])

    # Later rounds close as soon as every member who joined has answered.
    for number, picks in ((2, (0, 0, 0)), (3, (1, 0, 0))):
        ts, _ = racing.rounds()[-1]
        posted = len(fake.posts(CHANNEL))
        for user, shown in zip(MEMBERS, picks, strict=True):
            await racing.pick(ts, user, shown)
        await racing.races.drain()
        assert f"Round {number} of 3: the answer" in racing.channel_text(posted)
    final = racing.channel_text(posted)
    assert "Race results" in final and "wins with" in final
    table = final.split("Race results", 1)[1]
    assert table.index("<@U3ADMIN>") < table.index("<@U1LEARNER>") < table.index("<@U2STRANGER>")
    assert "3/3 right" in table

    posted = len(fake.posts(CHANNEL))
    await slack.command("leaderboard week", user=STRANGER, channel=CHANNEL)
    board = racing.channel_text(posted)
    assert "Leaderboard this week" in board
    assert board.index("<@U3ADMIN>") < board.index("<@U1LEARNER>") < board.index("<@U2STRANGER>")

    await slack.event({"type": "app_home_opened", "user": ADMIN, "channel": dm(ADMIN), "tab": "home", "event_ts": "1700000300.000001"})
    home = fake.homes[ADMIN]["blocks"]
    assert "You are *#1* on this workspace's leaderboard this week" in block_text(home)
    assert "🖼️" not in block_text(home) and not any(b["type"] == "image" for b in home)  # no picture drawn for Home

    await slack.command("privacy leaderboard off", user=ADMIN, channel=CHANNEL)
    assert "hidden" in racing.last_response().lower() or "hide" in racing.last_response().lower()
    posted = len(fake.posts(CHANNEL))
    await slack.command("leaderboard", user=STRANGER, channel=CHANNEL)
    assert "<@U3ADMIN>" not in racing.channel_text(posted)


def first_action_race(message: dict[str, Any]) -> str:
    action = next(e["action_id"] for b in message["blocks"] if b["type"] == "actions" for e in b["elements"])
    return str(action.split(":")[1])


async def test_race_refusals_name_the_problem(racing: RaceSlack) -> None:
    slack = racing.slack
    await slack.command("race race-pack 25", channel=CHANNEL)
    assert "`rounds` must be between 3 and 20; you gave 25." in racing.last_response()
    await slack.command("race race-pack 3 5", channel=CHANNEL)
    assert "`seconds` per round must be between 10 and 120; you gave 5." in racing.last_response()
    await slack.command("race race-pack 5", channel=CHANNEL)
    assert "has 3 items a race can use" in racing.last_response() and "5 rounds" in racing.last_response()
    await slack.command("race stop", channel=CHANNEL)
    assert "No race is running in this channel. Start one with `/quiz race`." in racing.last_response()
    await slack.command("leaderboard", channel=CHANNEL)
    assert "Nobody is on the leaderboard this week yet." in racing.channel_text()
    await slack.command("race race-pack", channel=dm(LEARNER))
    assert "Races run in a channel" in racing.last_response()
    assert racing.rounds() == []


async def test_stats_upload_the_picture_with_files_upload_v2_and_show_it(racing: RaceSlack) -> None:
    slack, fake = racing.slack, racing.fake
    await slack.command("stats")
    asked = fake.calls_to("files.getUploadURLExternal")
    completed = fake.calls_to("files.completeUploadExternal")
    assert len(asked) == 1 and len(completed) == 1
    assert not completed[0].args.get("channel_id"), "uploaded privately, shown in the message"
    blocks = fake.responses[-1]["blocks"]
    images = [b for b in blocks if b["type"] == "image"]
    assert len(images) == 1 and images[0]["alt_text"]
    file_id = images[0]["slack_file"]["id"]
    assert fake.uploads[file_id].startswith(PNG) and len(fake.uploads[file_id]) < 300 * 1024
    assert "Attempts" in block_text(blocks) or "No attempts yet" in block_text(blocks)  # the text stays


async def test_the_picture_names_people_as_slack_shows_them_not_by_raw_id(racing: RaceSlack) -> None:
    slack, fake = racing.slack, racing.fake
    fake.display_names.update({LEARNER: "Ann", STRANGER: "Bo"})
    await slack.command("stats")
    await slack.command(f"stats <@{STRANGER}|bo>")
    for response, name in zip(fake.responses[-2:], ("Ann", "Bo"), strict=True):
        [image] = [b for b in response["blocks"] if b["type"] == "image"]
        assert image["alt_text"].startswith(f"Progress of {name}:") and "<@" not in image["alt_text"]
        assert f"Progress: {name}" in block_text(response["blocks"])
    titles = [shared["title"] for shared in fake.shared]
    assert len(titles) == 2 and all("<@" not in t for t in titles) and titles[1].startswith("Progress of Bo:")


async def test_select_all_blanks_and_short_answers_race_as_in_a_quiz(racing: RaceSlack) -> None:
    slack, fake = racing.slack, racing.fake
    await slack.command("race kinds 3", channel=CHANNEL)
    for number in (1, 2, 3):
        ts, message = racing.rounds()[-1]
        text = block_text(message["blocks"])
        assert f"Race · round {number} of 3" in text
        before = len(fake.ephemerals)
        if "Pick the numbers." in text:
            await slack.click(CHANNEL, ts, label="Select all that apply", values=["0", "1"])
        elif "Fill in." in text:
            await slack.click(CHANNEL, ts, label="Blank 1", values=["0"])
            assert "[1: 4]" in block_text(fake.ephemerals[-1]["blocks"])  # the member's own picks, privately
            await slack.click(CHANNEL, ts, label="Blank 2", values=["1"])
            await slack.click(CHANNEL, ts, label="Check")
        else:
            assert "2 + 4?" in text
            await slack.click(CHANNEL, ts, label="Answer")
            form = slack.last_view()
            assert form["callback_id"].startswith("rc:")
            await slack.submit(form, {bk.ANSWER_BLOCK: "6"})
        notes = [block_text(e["blocks"]) for e in fake.ephemerals[before:]]
        assert "Your answer is in: #1" in notes[-1], notes
        if number == 1:  # time is up; later rounds close once the only member has answered
            racing.clock.advance(seconds=31)
            assert await racing.races.tick() == 1
        await racing.races.drain()
    assert "3/3 right" in racing.channel_text()
