"""SocialService: `/quiz leaderboard`, `/quiz privacy leaderboard on|off`, the stats picture, App Home rank."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from bot.core.errors import QuizError, UnknownName, place_word
from bot.core.i18n import _, public
from bot.core.model import Actor
from bot.core.pictures import leaderboard_image, progress_image
from bot.core.ports import Clock
from bot.core.replies import Image, Message, Reply, cmd

from .board import PERIODS, Period, leaderboard_message, privacy_message
from .ports import BoardStore

ZoneLookup = Callable[[str, str], Awaitable[str | None]]  # (platform, scope) -> IANA zone or None
Mention = Callable[[str], str]  # user id -> how the platform shows that person


async def _no_zone(platform: str, scope: str) -> str | None:
    return None


class SocialService:
    """Leaderboards per server or workspace, and progress pictures, independent of any platform."""

    def __init__(self, *, store: BoardStore, clock: Clock, zone_for: ZoneLookup = _no_zone) -> None:
        self._store = store
        self._clock = clock
        self._zone_for = zone_for  # the server's time zone, as set with the daily question

    async def leaderboard(
        self,
        actor: Actor,
        *,
        period: str | None = None,
        pack: str | None = None,
        mention: Mention | None = None,
        display_name: Mention | None = None,
        picture: bool = True,
        packs: Sequence[str] | None = None,
    ) -> Reply:
        """`/quiz leaderboard [week|month|all] [pack]`: a public message, with a picture of the top ten.

        `mention` renders a user id in the text (a platform mention); `display_name` in the
        picture, where mention markup would show as is (default: `mention`). `packs`: the packs
        this server or workspace sees; a `pack` not among them is refused with their names.
        """
        if actor.scope == "dm":  # a Discord DM names no server: every DM shares this scope, strangers' too
            raise QuizError(
                _("Leaderboards are kept per {place}: use {command} in a {place} channel.").format(
                    place=place_word(actor.platform), command=cmd("leaderboard")
                )
            )
        chosen = _period(period)
        if pack is not None and packs is not None and pack not in packs:
            raise UnknownName("pack", pack, packs)
        board = await self._store.leaderboard(
            actor.platform,
            actor.scope,
            now=self._clock.now(),
            period=chosen,
            pack=pack,
            tz=await self._zone_for(actor.platform, actor.scope),
        )
        show = mention or (lambda user_id: user_id)
        names = {row.user_id: show(row.user_id) for row in (*board.by_points, *board.by_accuracy)}
        message = leaderboard_message(board, names)
        if picture and board.by_points:
            title = message.title or "Leaderboard"
            label = display_name or show
            with public():  # posted for everyone, as the board is
                image = await leaderboard_image(title, [(label(r.user_id), r.points) for r in board.by_points[:10]])
            message = with_image(message, image)
        return Reply(messages=(message,), private=False)

    async def rank(self, actor: Actor, *, period: str | None = "week") -> int | None:
        """The learner's place by points this period (Slack App Home); None when hidden or absent."""
        board = await self._store.leaderboard(
            actor.platform,
            actor.scope,
            now=self._clock.now(),
            period=_period(period),
            tz=await self._zone_for(actor.platform, actor.scope),
        )
        return board.rank(actor.user_id)

    async def privacy(self, actor: Actor, *, visible: bool) -> Reply:
        """`/quiz privacy leaderboard on|off`: a private confirmation."""
        await self._store.set_leaderboard_visible(actor.platform, actor.user_id, visible)
        return Reply(messages=(privacy_message(visible),))

    async def progress_picture(self, actor: Actor, *, user_id: str | None = None, who: str | None = None) -> Image:
        """The `/quiz stats` picture of `user_id` (default: the actor), rendered off the event loop."""
        now = self._clock.now()
        data = (await self._store.progress_data(actor.platform, user_id or actor.user_id, now=now)).settled(now)
        return await progress_image(who or actor.mention, data)


def with_image(message: Message, image: Image) -> Message:
    """Add a picture after the message's text, which stays first for screen readers and failed images."""
    return replace(message, parts=(*message.parts, image))


def _period(period: str | None) -> Period:
    if period is None:
        return "week"
    for known in PERIODS:
        if period.lower() == known:
            return known
    raise UnknownName("period", period, PERIODS)
