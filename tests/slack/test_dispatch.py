"""Routing over the fake Slack: one session read per click, daily posts by their own prefix, old ids still work."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.adapters.slack.posts import SlackPoster
from bot.core import requests as rq
from bot.core.packs import load_path
from tests.conftest import DEMO_PACK
from tests.daily.wired import Wired, wire
from tests.fakes import FakeClock, LocalRunner
from tests.reads import CountingRepository
from tests.slack.conftest import ADMIN, CHANNEL, LEARNER, STRANGER, Slack, block_text, dm, make_service
from tests.slack.helpers import items


@pytest.fixture
async def counted_daily(
    open_slack: Callable[..., Any], repository: Any, runner: LocalRunner, clock: FakeClock, tmp_path: Path
) -> AsyncIterator[tuple[Slack, Wired, CountingRepository]]:
    counting = CountingRepository(repository)
    wired = await wire(counting, clock, runner, tmp_path)  # type: ignore[arg-type]
    async with open_slack(wired.service) as workspace:
        assert workspace.front is not None
        await wired.posters.add("slack", SlackPoster(workspace.front.api))
        yield workspace, wired, counting


def action_ids(message: dict[str, Any]) -> list[str]:
    return [e["action_id"] for b in message["blocks"] if b["type"] == "actions" for e in b["elements"]]


async def post_today(slack: Slack, wired: Wired, clock: FakeClock) -> dict[str, Any]:
    await slack.command("daily set time:11:00 timezone:UTC pack:study", user=ADMIN, channel=CHANNEL)
    clock.advance(hours=2)
    await wired.scheduler.tick()
    return slack.fake.posts(CHANNEL)[-1]


async def test_a_click_on_a_quiz_item_reads_its_session_once(
    open_slack: Callable[..., Any], repository: Any, runner: LocalRunner, clock: FakeClock
) -> None:
    counting = CountingRepository(repository)
    service = make_service(counting, runner, clock)
    await service.import_pack(load_path(DEMO_PACK).pack)
    async with open_slack(service) as slack:
        await slack.command("start demo difficulty:medium count:2")  # items with menus: a pick is answered in place
        channel = dm(LEARNER)
        item = items(slack, channel)[-1]
        menu = next(e for b in item["blocks"] if b["type"] == "actions" for e in b["elements"] if "select" in e["type"])
        counting.counted()
        updates = len(slack.fake.calls_to("chat.update"))
        await slack.click(channel, item["ts"], action_id=menu["action_id"], values=["0"])
        assert len(slack.fake.calls_to("chat.update")) == updates + 1  # the pick is shown in the item's message
        # One look at the session: the guess (read only where this process did not store it last).
        assert counting.counted() == [f"recent_session {item_session(item)}"]  # before: 3 (two only to rule out a daily post)


def item_session(item: dict[str, Any]) -> str:
    return next(i for i in action_ids(item) if i.startswith("qz:")).split(":")[1]


async def test_daily_post_controls_carry_their_own_prefix_and_read_no_session(
    counted_daily: tuple[Slack, Wired, CountingRepository], clock: FakeClock
) -> None:
    slack, wired, counting = counted_daily
    post = await post_today(slack, wired, clock)
    ids = action_ids(post)
    assert ids and all(i.startswith("dp:") for i in ids)
    counting.counted()
    await slack.click(CHANNEL, post["ts"], action_id=next(i for i in ids if i.endswith(":c:0")), user=LEARNER)
    assert "Right!" in "\n".join(block_text(e["blocks"]) for e in slack.fake.ephemerals if e["user"] == LEARNER)
    assert counting.counted() == []


async def test_a_post_made_with_quiz_ids_still_answers(
    counted_daily: tuple[Slack, Wired, CountingRepository], clock: FakeClock
) -> None:
    slack, wired, _ = counted_daily
    post = await post_today(slack, wired, clock)
    # As a post made before daily posts had their own prefix: every control carried `qz:<post id>:...`.
    old = json.loads(json.dumps(post).replace('"dp:', '"qz:'))
    slack.fake.messages[(CHANNEL, post["ts"])] = old
    updates, said = len(slack.fake.calls_to("chat.update")), len(slack.fake.posts(CHANNEL))
    right = next(i for i in action_ids(old) if i.endswith(":c:0"))
    assert right.startswith("qz:")
    await slack.click(CHANNEL, post["ts"], action_id=right, user=LEARNER)
    await slack.click(CHANNEL, post["ts"], action_id=right.replace(":c:0", ":c:1"), user=STRANGER)
    told = {u: "\n".join(block_text(e["blocks"]) for e in slack.fake.ephemerals if e["user"] == u) for u in (LEARNER, STRANGER)}
    assert "Right!" in told[LEARNER] and "Not quite" in told[STRANGER]
    assert len(slack.fake.calls_to("chat.update")) == updates  # the shared post is left as it is
    assert len(slack.fake.posts(CHANNEL)) == said  # nothing said in the channel
    stats = await wired.service.handle(wired_actor(), rq.Stats())
    assert "**1** attempt ·" in stats.messages[0].text()


def wired_actor() -> Any:
    from bot.core import Actor
    from tests.slack.conftest import TEAM

    return Actor("slack", TEAM, LEARNER, "learner")


async def test_work_after_an_acknowledgement_starts_from_the_request_itself(slack: Slack, monkeypatch: pytest.MonkeyPatch) -> None:
    """A command's work runs without Bolt's lazy listeners, and still reaches the learner.

    Bolt starts a lazy listener from a deep copy of the whole request (its context and Web API client
    included); its copier is watched here.
    """
    import slack_bolt.listener.asyncio_runner as runner_module

    copies: list[object] = []
    real = runner_module.create_copy
    monkeypatch.setattr(runner_module, "create_copy", lambda original: copies.append(original) or real(original))
    status, body = await slack.command("start demo count:2")
    assert (status, body) == (200, "")
    assert items(slack, dm(LEARNER))  # the work ran: the first item is in the learner's DM
    status, _ = await slack.command("help")
    assert status == 200
    assert copies == []


async def test_work_that_fails_before_it_can_tell_anyone_is_logged(slack: Slack, caplog: pytest.LogCaptureFixture) -> None:
    """Work that breaks outside `Jobs.run` (which tells the person) is logged with its traceback, after the ack."""
    assert slack.front is not None
    acks: list[object] = []

    async def ack(**kwargs: Any) -> None:
        acks.append(kwargs)

    async def acknowledge(ack: Any, body: dict[str, Any]) -> None:
        await ack()

    async def broken(body: dict[str, Any]) -> None:
        raise RuntimeError(f"could not read {body['text']!r}")

    listener = slack.front.jobs.acked_then(acknowledge, broken)
    await listener(ack, {"text": "start demo"}, None)
    await slack.front.idle()
    assert acks == [{}]
    failures = [r for r in caplog.records if r.levelname == "ERROR" and "after an acknowledgement failed" in r.getMessage()]
    assert len(failures) == 1 and "could not read 'start demo'" in str(failures[0].exc_info[1])  # type: ignore[index]
