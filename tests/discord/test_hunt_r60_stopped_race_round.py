"""A stopped race left its round's message live: every button, Stop race included, still pressable.

When a round ends on time or once everyone answered, its message is closed (buttons disabled, the
answer marked). A race stopped with its Stop button or `/quiz race stop` posted the final table but
left the round it stopped in open, so members kept answering into a race that was over and were
told so one by one. Now stopping closes the round's message as a round's end does.
"""

from __future__ import annotations

from typing import Any

from tests.discord.test_race import EPHEMERAL, RaceBot, racing, round_message  # noqa: F401

from . import payloads as p
from .conftest import components


def live(message: dict[str, Any]) -> list[str]:
    return [c.get("label") or c["custom_id"] for c in components(message) if not c.get("disabled")]


async def start(racing: RaceBot) -> dict[str, Any]:  # noqa: F811
    started = await racing.bot.command(p.ALICE, "start", [p.option("pack", "race-pack"), p.option("rounds", 3)], group="race")
    assert "A race starts!" in started.text(), started.text()
    first = round_message(started)
    assert live(first), first
    return first


async def test_the_stop_button_closes_the_round_it_stopped(racing: RaceBot) -> None:  # noqa: F811
    bot = racing.bot
    first = await start(racing)
    ack = await bot.click(p.BOB, first, "A")
    assert "Your answer is in" in ack.text(), ack.text()
    stopped = await bot.click(p.ALICE, first, "Stop race")
    assert "The race was stopped after 0 of 3 rounds." in stopped.text(), stopped.text()
    await racing.races.drain()
    shown = bot.fake.messages[first["id"]]
    assert live(shown) == [], components(shown)
    assert "(closed)" in shown["embeds"][0]["title"], shown["embeds"][0]
    bot.assert_all_acknowledged()


async def test_the_stop_command_closes_the_round_too(racing: RaceBot) -> None:  # noqa: F811
    bot = racing.bot
    first = await start(racing)
    stopped = await bot.command(p.ADMIN, "stop", group="race")
    assert not stopped.data.get("flags", 0) & EPHEMERAL and "stopped after 0 of 3 rounds" in stopped.text(), stopped.text()
    await racing.races.drain()
    assert live(bot.fake.messages[first["id"]]) == [], components(bot.fake.messages[first["id"]])
