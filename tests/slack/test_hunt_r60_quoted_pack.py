"""A pack named in quotes: `/quiz start "demo"` (or with a phone's curly quotes) said there was no pack "demo".

Pack ids hold no quotes (`PACK_ID`), so quotes around a typed name can only be the person's way of
naming it: they are read off like the case and spaces around it (`dispatch.typed_id`).
"""

from __future__ import annotations

import pytest

from tests.slack.conftest import LEARNER, Slack, block_text, dm
from tests.slack.helpers import is_item


@pytest.mark.parametrize("typed", ['"demo"', "“Demo”", "'demo'", "`demo`"])
async def test_a_pack_named_in_quotes_starts_that_pack(slack: Slack, typed: str) -> None:
    status, _body = await slack.command(f"start {typed} count:1")
    told = [block_text(r.get("blocks") or []) for r in slack.fake.responses]
    assert status == 200 and not any("There is no pack" in t for t in told), told
    assert is_item(slack.fake.posts(dm(LEARNER))[-1])


async def test_quotes_around_no_pack_are_still_refused(slack: Slack) -> None:
    status, _body = await slack.command('start "nosuch"')
    assert status == 200
    assert "There is no pack `nosuch`. Available: `demo`." in block_text(slack.fake.responses[-1]["blocks"])
