"""Hunt: what a learner typed after `/quiz` was quoted back in Slack's escaped form (`&amp;`, `<http://...>`).

The app's manifest has `should_escape: true`, so Slack sends `&`, `<` and `>` typed in a command
as `&amp;`, `&lt;` and `&gt;`, and a word that looks like a domain as a link (`<http://x.org|x.org>`).
The command's words were read as sent: `/quiz start demo R&D` answered "There is no topic
`R&amp;D`" (the entity escaped again, so the learner read `&amp;`), and `/quiz start torch.org`
"There is no pack `<http://torch.org|torch.org>`". The words are now read as the person typed
them; mentions (`<@U123|ada>`, `<#C123|study>`) stay what they are, and `/quiz run` code is
unescaped once, not twice.
"""

from __future__ import annotations

import json

from tests.slack.conftest import Slack, block_text


def last_note(slack: Slack) -> str:
    """The last private note, as mrkdwn (what Slack renders: one `&amp;` shows as `&`)."""
    return block_text(slack.fake.responses[-1]["blocks"])


async def test_an_ampersand_in_a_topic_is_quoted_back_as_typed(slack: Slack) -> None:
    await slack.command("start demo R&amp;D")  # typed: /quiz start demo R&D
    note = last_note(slack)
    assert "`R&amp;D`" in note, note  # mrkdwn for R&D
    assert "&amp;amp;" not in note, note


async def test_a_word_slack_made_a_link_is_quoted_back_as_typed(slack: Slack) -> None:
    await slack.command("start <http://torch.org|torch.org>")  # typed: /quiz start torch.org
    note = last_note(slack)
    assert "`torch.org`" in note, note
    assert "http://" not in note and "&lt;" not in note, note


async def test_an_unknown_subcommand_with_angle_brackets_is_quoted_back_as_typed(slack: Slack) -> None:
    status, body = await slack.command("&lt;start&gt;")  # typed: /quiz <start>
    assert status == 200
    note = block_text(json.loads(body)["blocks"])
    assert "`&lt;start&gt;` is not a command" in note, note
    assert "&amp;lt;" not in note, note


async def test_mentions_still_name_users_and_channels(slack: Slack) -> None:
    await slack.command("stats <@U2STRANGER|stranger>")
    assert "No attempts yet" in last_note(slack), last_note(slack)
    await slack.command("daily show <#C0QUIZ|study>")
    assert "is not one" not in last_note(slack), last_note(slack)


async def test_run_reads_typed_entities_once(slack: Slack) -> None:
    await slack.command("run print(1 &lt; 2, '&amp;lt;')")  # typed: /quiz run print(1 < 2, '&lt;')
    note = last_note(slack)
    assert "True &amp;lt;" in note, note  # the output `True &lt;`, escaped once for mrkdwn
