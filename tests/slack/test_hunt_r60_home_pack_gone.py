"""A pack disabled while the learner's Home tab is open: its Start says why, and Home shows what is there now.

The Home tab is published when it is opened; a pack disabled (or removed) after that kept its Start
button there. Pressing it told the learner there was no such pack, and Home went on offering the
same button, which could only fail again. Now a Start that fails publishes Home anew.
"""

from __future__ import annotations

from tests.slack.conftest import ADMIN, LEARNER, Slack, block_text, dm
from tests.slack.test_hunt_r57_home_start_twice import open_home, press_home_start


async def test_start_on_a_pack_gone_tells_why_and_home_no_longer_offers_it(slack: Slack) -> None:
    await open_home(slack)
    assert "qzh:start:demo" in str(slack.fake.homes[LEARNER]["blocks"])
    await slack.command("pack disable demo", user=ADMIN)
    await press_home_start(slack)
    told = block_text(slack.fake.posts(dm(LEARNER))[-1]["blocks"])
    assert "No packs are enabled here" in told, told
    home = slack.fake.homes[LEARNER]["blocks"]
    assert "qzh:start:demo" not in str(home), home
    assert "No packs are enabled here yet" in block_text(home)


async def test_a_start_that_works_leaves_home_as_it_was(slack: Slack) -> None:
    await open_home(slack)
    published = len(slack.fake.calls_to("views.publish"))
    await press_home_start(slack)
    assert len(slack.fake.calls_to("views.publish")) == published
