"""Hunt: a Slack admin and a Discord server's admin with the same pack id.

The bot serving one Slack workspace and Discord servers keeps one set of packs. A pack a Discord
server loaded is refused to the Slack admin, and the refusal must not say another *workspace* loaded
it (there is no other workspace here): it names a server or workspace, as for the operator's pack.
"""

from __future__ import annotations

from bot.core import QuizService
from tests.conftest import hand_demo_to
from tests.slack.conftest import ADMIN, Slack, block_text, dm
from tests.slack.test_admin import GOOD

DEMO = (
    GOOD.replace(b"pack: extra", b"pack: demo").replace(b"title: Extra pack", b"title: Our demo").replace(b"version: 1", b"version: 9")
)


async def test_a_discord_servers_pack_is_not_said_to_be_another_workspaces(slack: Slack, quiz_service: QuizService) -> None:
    await hand_demo_to(quiz_service, "discord:800000000000000001")
    await slack.command("pack remove demo", user=ADMIN)
    refused = block_text(slack.fake.responses[-1]["blocks"])
    assert "only they may remove it" in refused, refused
    assert "another workspace" not in refused and "by another server or workspace" in refused, refused
    file = slack.fake.add_file("demo.yaml", DEMO, filetype="yaml")
    await slack.message("pack load", user=ADMIN, files=[file])
    told = "\n".join(block_text(m.get("blocks") or []) for m in slack.fake.posts(dm(ADMIN)))
    assert "The pack `demo`" in told and "another workspace" not in told, told
    assert "by another server or workspace" in told, told
