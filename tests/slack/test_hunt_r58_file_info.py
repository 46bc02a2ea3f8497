"""Hunt: a .py answer Slack would not describe (files.info failed) was reported as "Slack refused my reply".

A message event may carry a file without its URLs (`file_access: check_file_info`, as for a file
still being processed); the bot then asks files.info. When that failed (the learner deleted the file
at once: file_not_found), the learner read "Slack refused my reply (file_not_found); please try
again": nothing of theirs was said to be wrong, and the reply was not what failed. It now says the
file could not be fetched, as a failed download does.
"""

from __future__ import annotations

from tests.slack.conftest import Slack, block_text


async def test_a_file_slack_cannot_describe_is_said_to_be_unfetched(slack: Slack) -> None:
    await slack.command("start demo difficulty:hard count:1")
    slack.fake.fail("files.info", error="file_not_found")
    await slack.message("", files=[{"id": "F09GONE", "name": "total.py", "file_access": "check_file_info"}])
    told = "\n".join(block_text(e.get("blocks") or []) for e in slack.fake.ephemerals)
    assert "I could not fetch the file from Slack: file_not_found." in told, told
    assert "refused my reply" not in told, told
