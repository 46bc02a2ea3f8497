"""Hunt: `/quiz run` followed by a new line (or a non-breaking space) was "not a command".

The subcommand was cut from the rest at the first plain space only. Typing `/quiz run`, then
Shift+Enter and the code (the natural way to send several lines), sent `run\\nprint(...)`, and
the learner read "`run print(...)` is not a command"; so did `/quiz start` followed by a
non-breaking space (Option+Space on a Mac keyboard). Any whitespace now ends the subcommand.
"""

from __future__ import annotations

import json

from tests.slack.conftest import LEARNER, Slack, block_text, dm
from tests.slack.helpers import is_item


async def test_run_then_a_new_line_runs_the_code(slack: Slack) -> None:
    status, body = await slack.command("run\nx = 6 * 7\nprint(x)")
    assert status == 200 and "not a command" not in body, body
    assert "42" in block_text(slack.fake.responses[-1]["blocks"])


async def test_start_then_a_non_breaking_space_starts_the_quiz(slack: Slack) -> None:
    status, body = await slack.command("start\u00a0demo count:1")
    assert status == 200 and "not a command" not in body, body
    assert is_item(slack.fake.posts(dm(LEARNER))[-1])


async def test_a_tab_after_the_subcommand_is_a_space(slack: Slack) -> None:
    status, body = await slack.command("packs\t")
    assert "not a command" not in body, body
    status, body = await slack.command("stats\t<@U2STRANGER>")
    assert status == 200 and not body, body and json.loads(body)
    assert "No attempts yet" in block_text(slack.fake.responses[-1]["blocks"])
