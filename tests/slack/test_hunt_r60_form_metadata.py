"""An answer form whose private_metadata holds null or numbers where strings belong still shows its grade.

`read_metadata` turned every value into a string, so `{"c": null}` became the channel "None" and
`{"m": 17}` the message "17": the answer was graded, and the reply went to a channel that does not
exist, so the learner was told "Slack refused my reply" instead of seeing the grade.
"""

from __future__ import annotations

import json

from tests.slack.conftest import LEARNER, Slack, block_text, dm
from tests.slack.helpers import short_item_form


async def test_an_answer_form_with_nulls_in_its_metadata_shows_the_grade(slack: Slack) -> None:
    item = await short_item_form(slack)
    view = slack.last_view()
    assert json.loads(view["private_metadata"])["c"] == dm(LEARNER)
    view = {**view, "private_metadata": json.dumps({"c": None, "t": None, "m": 17})}
    status, _body = await slack.submit(view, {"answer": "6"})
    assert status == 200
    said = "\n".join(block_text(m["blocks"]) for m in slack.fake.posts(dm(LEARNER)))
    said += "\n".join(block_text(e.get("blocks") or []) for e in slack.fake.ephemerals)
    assert "refused my reply" not in said and "went wrong" not in said, said
    assert "Correct" in said or "Correct" in block_text(slack.fake.message(dm(LEARNER), item["ts"])["blocks"]), said
    assert not [c for c in slack.fake.calls if c.args.get("channel") == "None" or c.args.get("ts") in ("17", 17)]
