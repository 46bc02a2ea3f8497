"""Daily practice in the dispatcher: its requests, its post's `dp:` controls, its `dy:` buttons.

Also, through the dispatcher's `also`: clicks on posts made when their controls carried the
quiz's `qz:` (the quiz finds no session under a post's id and leaves the id unclaimed), code sent
under a post (a `Submit` naming the post), the daily review's bookkeeping after each graded item,
and the daily part of `/quiz stats`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.core import actions as ax
from bot.core import requests as rq
from bot.core.dispatch import NOT_OURS, Dispatcher, Unclaimed
from bot.core.errors import QuizError
from bot.core.i18n import N_, _
from bot.core.model import Actor
from bot.core.quiz import QuizDesk
from bot.core.replies import Reply

from . import actions as dx
from .handlers import DailyDesk

NOT_SET_UP = N_("Daily practice is not set up in this bot.")


def register(dispatcher: Dispatcher, desk: DailyDesk | None, quiz: QuizDesk) -> None:
    """Register daily practice; without a desk its commands say it is not set up."""
    if desk is None:
        for kind in rq.DAILY_REQUESTS:
            dispatcher.request(kind, _not_set_up)
        return
    routes = DailyRoutes(desk)
    desk.register(dispatcher)
    dispatcher.action(ax.POST_PREFIX, routes.on_post)
    dispatcher.action(dx.PREFIX, routes.on_button)
    dispatcher.also(ax.PREFIX, routes.on_old_post)
    dispatcher.also(rq.Submit, routes.on_thread_text)
    quiz.after_item.append(desk.after_item)
    stats = dispatcher.handler(rq.Stats)
    if stats is not None:
        routes.stats_before = stats
        dispatcher.request(rq.Stats, routes.stats)


async def _not_set_up(actor: Actor, request: Any) -> Reply:
    raise QuizError(_(NOT_SET_UP))


class DailyRoutes:
    """Translate dispatched requests into `DailyDesk` calls; every answer to a post is an aside."""

    def __init__(self, desk: DailyDesk) -> None:
        self._desk = desk
        self.stats_before: Any = None

    async def on_post(self, actor: Actor, request: rq.Act) -> Reply:
        """A control of a channel's daily post (`dp:`): no session is read."""
        parsed = ax.parse(request.action, prefix=ax.POST_PREFIX)
        if parsed is None:
            raise QuizError(_(NOT_OURS))
        return await self._post(actor, parsed, request)

    async def on_old_post(self, actor: Actor, request: rq.Act) -> Reply:
        """A control of a post made when they carried `qz:<post id>:...`: the quiz found no session there."""
        parsed = ax.parse(request.action)
        if parsed is None or not await self._desk.owns(parsed.session_id):
            raise Unclaimed()
        return await self._post(actor, parsed, request)

    async def _post(self, actor: Actor, action: ax.Action, request: rq.Act) -> Reply:
        try:
            action = replace(action, prefix=ax.PREFIX)
            reply = await self._desk.on_post(actor, action, request.values, key=request.key, progress=request.progress)
        except QuizError as exc:
            exc.aside = True
            raise
        form = dx.post_form(reply.form) if reply.form is not None else None
        return replace(reply, form=form, aside=True)

    async def on_thread_text(self, actor: Actor, request: rq.Submit) -> Reply:
        """Code sent under a channel's daily post (its thread, a reply): graded like its Answer form."""
        post_id = await self._post_under(actor, request)
        if post_id is None:
            raise Unclaimed()
        try:
            reply = await self._desk.on_thread_text(actor, post_id, request.text, request.progress, key=request.key)
        except QuizError as exc:
            exc.aside = True  # told only to the member, like the answer
            raise
        return replace(reply, aside=True)

    async def _post_under(self, actor: Actor, request: rq.Submit) -> str | None:
        """The post a text answers: named, or the one whose thread it is in, or the one it replies to."""
        if request.session_id is not None:
            return request.session_id if await self._desk.owns(request.session_id) else None
        where = request.where
        if where is None or where.dm:
            return None
        for ref in (where.thread, where.replied_to):
            if ref is not None:
                post = await self._desk.daily.post_at(actor.platform, ref, where.channel)
                if post is not None:
                    return post.id
        return None

    async def on_button(self, actor: Actor, request: rq.Act) -> Reply:
        """The reminder's Start button, a leech's Reset button (`dy:`)."""
        parsed = dx.parse(request.action)
        if parsed is None:
            raise QuizError(_(NOT_OURS))
        return await self._desk.on_action(actor, parsed, request.key)

    async def stats(self, actor: Actor, request: rq.Stats) -> Reply:
        reply: Reply = await self.stats_before(actor, request)
        daily = await self._desk.stats(actor, request.user_id)
        return replace(reply, messages=(*reply.messages, daily))
