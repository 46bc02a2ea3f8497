"""Code answers (modal, ```python block, .py file), /quiz run, and output too long for Slack."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.core import QuizService
from bot.core.packs import load_path
from bot.core.ports import RunOutcome, RunRequest
from bot.core.work import Unfinished
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock, LocalRunner
from tests.slack.conftest import LEARNER, Slack, block_text, dm, make_service
from tests.slack.helpers import SOLUTION, WRONG, feedback_on, has_controls, items
from tests.slack.limits import blocks_problems


async def start_code_item(slack: Slack) -> dict[str, Any]:
    await slack.command("start demo difficulty:hard count:1")
    return items(slack, dm(LEARNER))[-1]


async def test_a_py_file_sent_to_the_dm_passes(slack: Slack) -> None:
    item = await start_code_item(slack)
    file = slack.fake.add_file("total.py", SOLUTION.encode(), filetype="python")
    await slack.message("", files=[file])
    channel = dm(LEARNER)
    assert slack.fake.downloads == [(file["id"], True)]
    assert not has_controls(slack.fake.message(channel, item["ts"]))
    feedback = feedback_on(slack, channel, item["ts"])
    assert "*Correct!*" in feedback and "*2 of 2 tests passed*" in feedback
    assert "✅ `total` is 55." in feedback and "```\n55\n```" in feedback


async def test_failing_code_from_the_modal_gets_one_line_per_test_and_another_try(slack: Slack) -> None:
    item = await start_code_item(slack)
    channel = dm(LEARNER)
    await slack.click(channel, item["ts"], label="Answer")
    view = slack.last_view()
    assert view["blocks"][0]["element"]["initial_value"] == "total = 0\n"  # the starter, ready to edit
    await slack.submit(view, {"answer": WRONG})
    feedback = feedback_on(slack, channel, item["ts"])
    assert "*Not quite.*" in feedback and "*0 of 2 tests passed*" in feedback
    assert "❌ `total` must be 55." in feedback and "❌ Print `total`." in feedback
    assert "2 attempts left" in feedback
    assert has_controls(slack.fake.message(channel, item["ts"]))  # the Answer button stays for another try


async def test_a_python_block_in_the_dm_without_a_quiz_says_so(slack: Slack) -> None:
    await slack.message("```python\nprint(1)\n```")
    assert "You have no quiz running" in block_text(slack.fake.ephemerals[-1]["blocks"])
    await slack.message("hello there")
    assert "```python" in block_text(slack.fake.ephemerals[-1]["blocks"]).replace("\u200b", "")


async def test_slack_escaping_is_undone_before_the_code_runs(slack: Slack, runner: LocalRunner) -> None:
    await start_code_item(slack)
    # Slack sends < > & as &lt; &gt; &amp; and wraps what looks like a link in <...>.
    await slack.message("```python\ntotal = sum(range(1, 11)) if 1 &lt; 2 &amp; 3 else 0\nprint(total)  # <http://x.org|x.org>\n```")
    assert runner.requests[-1].code == "total = sum(range(1, 11)) if 1 < 2 & 3 else 0\nprint(total)  # x.org"


async def test_code_from_slacks_composer_is_read_from_its_rich_text_block(slack: Slack, runner: LocalRunner) -> None:
    item = await start_code_item(slack)
    # What Slack's composer sends for a code block: fences glued to the code, entities in the text,
    # and the code exactly as typed in a rich_text_preformatted element.
    typed = "total = sum(range(1, 11)) if 1 < 2 else 0\nprint(total)"
    text = "```total = sum(range(1, 11)) if 1 &lt; 2 else 0\nprint(total)```"
    blocks = [
        {
            "type": "rich_text",
            "block_id": "Xy1",
            "elements": [{"type": "rich_text_preformatted", "elements": [{"type": "text", "text": typed}], "border": 0}],
        }
    ]
    await slack.message(text, blocks=blocks)
    assert runner.requests[-1].code == typed
    assert not has_controls(slack.fake.message(dm(LEARNER), item["ts"]))  # right on the first try: the item closed
    assert "Correct" in feedback_on(slack, dm(LEARNER), item["ts"])


async def test_a_fence_glued_to_the_code_without_blocks_still_counts(slack: Slack, runner: LocalRunner) -> None:
    await start_code_item(slack)
    await slack.message("here you go ```total = sum(range(1, 11))\nprint(total)``` thanks")
    assert runner.requests[-1].code == "total = sum(range(1, 11))\nprint(total)"


async def test_quiz_run_with_over_long_output_is_cut_with_a_note(slack: Slack) -> None:
    status, body = await slack.command("run ```python\nfor i in range(40):\n    print(str(i) * 4000)\n```")
    assert status == 200 and json.loads(body)["text"].startswith("⏳")  # acknowledged before the run
    response = slack.fake.responses[-1]
    assert response["response_type"] == "ephemeral"
    assert blocks_problems(response["blocks"], max_blocks=50) == []
    text = block_text(response["blocks"])
    assert "cut to fit Slack" in text and "more characters of code not shown" in text
    assert "Output cut: showing the first 15 lines" in text
    assert all(len(b["text"]["text"]) <= 3000 for b in response["blocks"] if "text" in b and b["type"] == "section")


async def test_quiz_run_without_code_opens_a_modal(slack: Slack) -> None:
    await slack.command("run")
    view = slack.last_view()
    assert view["callback_id"] == "qzrun"
    _, body = await slack.submit(view, {"code": ""})
    assert json.loads(body)["response_action"] == "errors"
    await slack.submit(view, {"code": "print(6 * 7)"})
    assert "```\n42\n```" in block_text(slack.fake.responses[-1]["blocks"])


class GatedRunner:
    """A sandbox that waits for the test's go before running: proves the ack comes first."""

    max_code_bytes = LocalRunner.max_code_bytes

    def __init__(self, inner: LocalRunner) -> None:
        self.inner = inner
        self.started = asyncio.Event()
        self.go = asyncio.Event()

    async def close(self) -> None:
        return None

    async def run(self, request: RunRequest) -> RunOutcome:
        self.started.set()
        await self.go.wait()
        return await self.inner.run(request)


async def test_slow_work_runs_after_the_acknowledgement(
    open_slack: Callable[[QuizService], Any], repository: Any, runner: LocalRunner, clock: FakeClock
) -> None:
    gated = GatedRunner(runner)
    service = make_service(repository, gated, clock)  # type: ignore[arg-type]
    await service.import_pack(load_path(DEMO_PACK).pack)
    async with open_slack(service) as slack:
        item = await start_code_item(slack)
        await slack.click(dm(LEARNER), item["ts"], label="Answer")
        status, body = await slack.submit(slack.last_view(), {"answer": SOLUTION}, settle=False)
        assert (status, body) == (200, "")  # the modal closes while the code has not run yet
        await asyncio.wait_for(gated.started.wait(), 10)
        assert has_controls(slack.fake.message(dm(LEARNER), item["ts"]))
        gated.go.set()
        await slack.settle()
        assert not has_controls(slack.fake.message(dm(LEARNER), item["ts"]))


async def test_the_code_form_is_acknowledged_only_once_its_grading_is_recorded(
    open_slack: Callable[[QuizService], Any], repository: Any, runner: LocalRunner, clock: FakeClock, tmp_path: Path
) -> None:
    """While the unfinished-work row cannot be written (the test holds SQLite's write lock), the form stays open.

    The modal closing (the 200) and "Running your code" are what a process killed next would
    leave the learner with: they come once the row would tell of an answer lost with it.
    """
    service = QuizService(
        repository=repository, runner=runner, clock=clock, rng=random.Random(7), work=Unfinished(repository.work, clock)
    )
    await service.import_pack(load_path(DEMO_PACK).pack)
    async with open_slack(service) as slack:
        item = await start_code_item(slack)
        await slack.click(dm(LEARNER), item["ts"], label="Answer")
        lock = sqlite3.connect(tmp_path / "quizbot.db", isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
        try:
            submitted = asyncio.create_task(slack.submit(slack.last_view(), {"answer": SOLUTION}, settle=False))
            done, _ = await asyncio.wait({submitted}, timeout=1.0)  # under the adapter's 2 s acknowledgement deadline
            assert not done, "the form was acknowledged before its grading could be recorded"
            assert not any("Running your code" in e["text"] for e in slack.fake.ephemerals)
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        assert await submitted == (200, "")
        await slack.settle()
        assert any("Running your code" in e["text"] for e in slack.fake.ephemerals)
        assert "Correct" in block_text(slack.fake.message(dm(LEARNER), item["ts"])["blocks"])
        assert await repository.work.all() == []  # settled with the answer
