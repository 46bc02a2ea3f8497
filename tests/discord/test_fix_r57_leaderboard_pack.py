"""`/quiz leaderboard pack:nope` refuses a pack that does not exist here and names the packs that do.

It answered "Nobody is on the leaderboard this week in `nope` yet", as if the pack existed. The
packs named are the ones this server sees: not another server's own pack.
"""

from __future__ import annotations

from tests.race.helpers import race_pack

from . import payloads as p
from .test_race import CAT, RaceBot, racing

__all__ = ["racing"]  # the fixture (the race and leaderboard wiring), used here as in test_race


async def test_an_unknown_pack_is_refused_with_the_packs_this_server_sees(racing: RaceBot) -> None:
    bot = racing.bot
    await bot.service.catalogue.import_pack(race_pack(choices=3, pack_id="elsewhere"), by="discord:800000000000000999")
    await bot.service.catalogue.import_pack(race_pack(choices=3, pack_id="ours"), by=f"discord:{p.GUILD_ID}")
    unknown = await bot.command(CAT, "leaderboard", [p.option("pack", "nope")])
    assert "There is no pack `nope`. Available: `kinds`, `ours`, `race-pack`." in unknown.text(), unknown.text()
    assert "Nobody is on the leaderboard" not in unknown.text()
    hidden = await bot.command(CAT, "leaderboard", [p.option("pack", "elsewhere")])  # another server's pack
    assert "There is no pack `elsewhere`." in hidden.text() and "`elsewhere`," not in hidden.text(), hidden.text()
    known = await bot.command(CAT, "leaderboard", [p.option("pack", "race-pack")])
    assert "Nobody is on the leaderboard this week in `race-pack` yet" in known.text(), known.text()
    bot.assert_all_acknowledged()
