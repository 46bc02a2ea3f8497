"""Hunt: a message that is not an answer waited for the learner's other work (or for users.info) before its 200.

A code message's 200 waits for its grading row (so a kill loses nothing silently), but everything else
is to be acknowledged at once. It was not: the message went through the learner's queue first, so
"thanks!" typed in the DM while their code ran in the sandbox, or a line of chat in a channel, got
its 200 only once that grading ended; and every channel message asked Slack's users.info for its
author's language first, so while users.info was rate limited chat waited seconds. Slack sends an
event again after 3 s without a 200, and turns off event delivery for an app that keeps failing.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bot.core.packs import load_path
from bot.core.ports import RunOutcome, RunRequest
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock, LocalRunner
from tests.slack.conftest import CHANNEL, LEARNER, TEAM, Slack, block_text, dm, make_service
from tests.slack.helpers import SOLUTION, feedback_on, items

PROMPT_S = 1.0  # an acknowledgement that is not waiting for anything comes well within this


class HeldRunner(LocalRunner):
    """The sandbox, held until the test lets it run."""

    def __init__(self) -> None:
        super().__init__()
        self.running = asyncio.Event()
        self.go = asyncio.Event()

    async def run(self, request: RunRequest) -> RunOutcome:
        self.running.set()
        await self.go.wait()
        return await super().run(request)


_ts = iter(range(1, 10_000))


def message(text: str, *, channel: str, user: str = LEARNER) -> dict[str, Any]:
    return {
        "type": "message", "channel": channel, "user": user, "text": text, "ts": f"1700000500.{next(_ts):06d}",
        "event_ts": "1700000500.000001", "channel_type": "im" if channel.startswith("D") else "channel", "team": TEAM,
    }  # fmt: skip


async def acknowledged_within(slack: Slack, event: dict[str, Any], seconds: float) -> bool:
    started = time.monotonic()
    sent = asyncio.create_task(slack.event(event, settle=False))
    done, _ = await asyncio.wait({sent}, timeout=seconds + 5)
    if not done:
        await sent  # the test ends with every request answered
    return bool(done) and sent.result()[0] == 200 and time.monotonic() - started < seconds


async def test_a_message_that_is_not_an_answer_is_acknowledged_while_the_learners_code_runs(
    open_slack: Any, repository: Any, clock: FakeClock
) -> None:
    runner = HeldRunner()
    service = make_service(repository, runner, clock)
    await service.import_pack(load_path(DEMO_PACK).pack)
    async with open_slack(service) as slack:
        await slack.command("start demo difficulty:hard count:1")
        item = items(slack, dm(LEARNER))[-1]
        code = asyncio.create_task(slack.event(message(f"```python\n{SOLUTION}```", channel=dm(LEARNER)), settle=False))
        await asyncio.wait_for(runner.running.wait(), 10)
        waits = asyncio.create_task(asyncio.sleep(6))  # the sandbox is let go after this, whatever happens
        waits.add_done_callback(lambda _: runner.go.set())
        try:
            assert await acknowledged_within(slack, message("thanks, waiting for the result", channel=dm(LEARNER)), PROMPT_S)
            assert await acknowledged_within(slack, message("anyone else doing the quiz?", channel=CHANNEL), PROMPT_S)
        finally:
            runner.go.set()
        assert (await code)[0] == 200
        await slack.settle()
        assert "*Correct!*" in feedback_on(slack, dm(LEARNER), item["ts"])
        hints = [block_text(e["blocks"]) for e in slack.fake.ephemerals if e["channel"] == dm(LEARNER)]
        assert any("```python" in h.replace("\u200b", "") for h in hints), hints  # the DM message still got its hint


async def test_chat_in_a_channel_is_acknowledged_at_once_while_users_info_is_rate_limited(slack: Slack) -> None:
    slack.fake.fail("users.info", status=429, headers={"Retry-After": "2"}, times=2)
    try:
        assert await acknowledged_within(slack, message("hello all", channel=CHANNEL), PROMPT_S)
        assert await acknowledged_within(slack, message("```python\nprint('look')\n```", channel=CHANNEL), PROMPT_S)  # code outside a thread is chat
    finally:
        await slack.settle()
    assert slack.fake.ephemerals == [] and slack.fake.posts() == []  # chat gets no answer
