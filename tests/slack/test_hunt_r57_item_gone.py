"""Hunt: when the question's message could not be edited, the next question never came.

An answer's reply edits the question's message (the grade in place), then posts what follows. When
Slack refused the edit (a channel admin deleted the quiz message: message_not_found), the reply
stopped there: the answer was stored, the learner read "Slack refused my reply; please try again",
and the next question was never posted. Trying again did not bring it either (the reply counted as
handed over), and `/quiz skip` again skipped a question never seen. Now the grade is posted as a new
message when the old one cannot be edited, and what follows comes as usual.
"""

from __future__ import annotations

from tests.slack.conftest import CHANNEL, Slack, block_text
from tests.slack.helpers import is_item, items


def told(slack: Slack) -> str:
    return "\n".join(block_text(e.get("blocks") or []) for e in [*slack.fake.ephemerals, *slack.fake.responses])


async def test_a_skip_whose_question_message_was_deleted_still_posts_the_next_question(slack: Slack) -> None:
    await slack.command("start demo count:3", channel=CHANNEL)
    first = items(slack, CHANNEL)[-1]
    assert "Question 1 of 3" in block_text(first["blocks"])
    slack.fake.fail("chat.update", error="message_not_found")  # an admin tidied the channel
    await slack.command("skip", channel=CHANNEL)
    assert "please try again" not in told(slack), told(slack)
    posted = [block_text(m["blocks"]) for m in slack.fake.posts(CHANNEL) if m["ts"] > first["ts"]]
    assert any("Skipped" in text for text in posted), posted  # the grade, as a new message in the thread
    assert is_item(slack.fake.posts(CHANNEL)[-1]) and "Question 2 of 3" in posted[-1], posted
    await slack.command("current", channel=CHANNEL)
    assert "Question 2 of 3" in block_text(slack.fake.posts(CHANNEL)[-1]["blocks"])


async def test_an_answer_whose_message_cannot_be_edited_still_shows_its_grade_and_the_next_question(slack: Slack) -> None:
    await slack.command("start demo difficulty:easy count:2", channel=CHANNEL)
    first = items(slack, CHANNEL)[-1]
    slack.fake.fail("chat.update", error="cant_update_message")
    await slack.click(CHANNEL, first["ts"], label="Skip")
    assert "please try again" not in told(slack), told(slack)
    posted = [m for m in slack.fake.posts(CHANNEL) if m["ts"] > first["ts"]]
    assert "Skipped" in block_text(posted[0]["blocks"]) and posted[0]["thread_ts"] == first["thread_ts"]
    assert is_item(posted[-1]) and "Question 2 of 2" in block_text(posted[-1]["blocks"])
