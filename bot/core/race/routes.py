"""Races and leaderboards in the dispatcher: their requests, the `rc:` controls, the stats picture."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace

from bot.core import queries as q
from bot.core import requests as rq
from bot.core.dispatch import Dispatcher, Handler
from bot.core.errors import QuizError
from bot.core.i18n import N_, _
from bot.core.model import Actor
from bot.core.replies import Reply

from . import actions as rx
from .service import RaceService
from .social import SocialService, with_image

log = logging.getLogger(__name__)

NO_RACES = N_("Races are not set up in this process.")
NO_BOARDS = N_("Leaderboards are not set up in this process.")


def register(dispatcher: Dispatcher, races: RaceService | None, social: SocialService | None) -> None:
    """Register what this process can do; what it cannot (no race store) is refused politely."""

    async def listed(scope: str) -> list[str]:
        """The packs a server or workspace sees, enabled or not: the packs its leaderboard may name."""
        names: list[str] = await dispatcher.ask(q.ListedPackNames(scope))
        return names

    routes = SocialRoutes(races, social, dispatcher.handler(rq.Stats), listed=listed)
    dispatcher.request(rq.RaceStart, routes.start)
    dispatcher.request(rq.RaceStop, routes.stop)
    dispatcher.action(rx.PREFIX, routes.act)
    dispatcher.request(rq.Leaderboard, routes.leaderboard)
    dispatcher.request(rq.Privacy, routes.privacy)
    dispatcher.query(q.Rank, routes.rank)
    dispatcher.query(q.RememberRace, routes.remember)
    if social is not None and routes.stats_text is not None:
        dispatcher.request(rq.Stats, routes.stats)


def mention_for(platform: str) -> Callable[[str], str]:
    """How a leaderboard names a person: a mention on Discord and Slack (both read `<@id>`), else the id."""
    if platform in ("discord", "slack"):
        return lambda user_id: f"<@{user_id}>"
    return lambda user_id: user_id


class SocialRoutes:
    def __init__(
        self,
        races: RaceService | None,
        social: SocialService | None,
        stats_text: Handler | None,
        *,
        listed: Callable[[str], Awaitable[list[str]]] | None = None,
    ) -> None:
        self._races = races
        self._social = social
        self.stats_text = stats_text
        self._listed = listed  # the packs a server or workspace sees, enabled or not (`ListedPackNames`)

    def _racing(self) -> RaceService:
        if self._races is None:
            raise QuizError(_(NO_RACES))
        return self._races

    def _boards(self) -> SocialService:
        if self._social is None:
            raise QuizError(_(NO_BOARDS))
        return self._social

    async def start(self, actor: Actor, r: rq.RaceStart) -> Reply:
        return await self._racing().start(
            actor, pack=r.pack, topic=r.topic, difficulty=r.difficulty, rounds=r.rounds, seconds=r.seconds
        )

    async def stop(self, actor: Actor, r: rq.RaceStop) -> Reply:
        return await self._racing().stop(actor)

    async def act(self, actor: Actor, r: rq.Act) -> Reply:
        return await self._racing().act(actor, r.action, r.values)

    async def leaderboard(self, actor: Actor, r: rq.Leaderboard) -> Reply:
        boards = self._boards()
        packs = await self._listed(actor.scope) if r.pack is not None and self._listed is not None else None
        return await boards.leaderboard(
            actor, period=r.period, pack=r.pack, mention=mention_for(actor.platform), picture=actor.platform == "console", packs=packs
        )

    async def privacy(self, actor: Actor, r: rq.Privacy) -> Reply:
        return await self._boards().privacy(actor, visible=r.visible)

    async def rank(self, query: q.Rank) -> int | None:
        return await self._social.rank(query.actor) if self._social is not None else None

    async def remember(self, query: q.RememberRace) -> None:
        if self._races is not None:
            await self._races.set_anchor(query.race_id, dict(query.anchor))

    async def stats(self, actor: Actor, request: rq.Stats) -> Reply:
        """The stats text, with the progress picture after it (the text stays first and answers alone on failure)."""
        assert self.stats_text is not None and self._social is not None
        reply: Reply = await self.stats_text(actor, request)
        if not request.picture or not reply.messages:
            return reply
        try:
            image = await self._social.progress_picture(actor, user_id=request.user_id, who=request.name)
        except Exception:
            log.exception("the progress picture failed")
            return reply
        return replace(reply, messages=(with_image(reply.messages[0], image), *reply.messages[1:]))

