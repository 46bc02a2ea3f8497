"""Middleware: tell a learner first about their work a stopped or killed process never finished."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .dispatch import Next
from .errors import QuizError
from .model import Actor
from .replies import Message, Reply
from .work import Unfinished


class UnfinishedNotices:
    """Put the notices of unfinished work (each shown once) before the reply, or before a refusal."""

    def __init__(self, work: Unfinished) -> None:
        self._work = work

    async def __call__(self, actor: Actor, request: Any, next_: Next) -> Reply:
        try:
            reply = await next_()
        except QuizError as exc:
            exc.before = await self._notices(actor)
            raise
        if reply.form is not None:  # a form opens alone: the notice waits for the next reply
            return reply
        before = await self._notices(actor)
        return replace(reply, messages=(*before, *reply.messages)) if before else reply

    async def _notices(self, actor: Actor) -> tuple[Message, ...]:
        try:
            return await self._work.notices(actor)
        except Exception as exc:  # the reply goes out regardless; the rows stay for the next request
            self._work.faults.failure(exc, "looking for unfinished work")
            return ()
