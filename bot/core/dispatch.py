"""The dispatcher: requests to handlers by type, action ids to features by prefix, middleware around both.

In the manner of Bolt's listeners and middleware. Each feature registers what it answers from its
own package (`register(dispatcher)`): request types, and the prefix its controls' action ids carry
(`qz:`, `dp:`, `rc:` ...); the dispatcher knows none of them by name. Cross-cutting work (the
notices of unfinished work, metrics timing, a shutdown's drain) is middleware: a function of the
actor, the request and `next`, which runs the rest of the chain.

An action whose prefix is taken by another feature since (a channel's daily post and the admins'
confirmations once carried the quiz's `qz:`) still reaches its feature: the owner of the prefix
raises `Unclaimed` when the id names nothing of its own, and the handlers registered with
`also(prefix, ...)` are asked in turn. The same holds for a request type (a code message naming a
daily post rather than a quiz: `also(Submit, ...)`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import is_dataclass, replace
from functools import partial
from typing import Any

from bot.core.i18n import N_, _

from . import actions as ax
from . import requests as rq
from .errors import QuizError
from .model import Actor
from .replies import Reply
from .words import shown

Handler = Callable[[Actor, Any], Awaitable[Reply]]
ActionHandler = Callable[[Actor, rq.Act], Awaitable[Reply]]
Next = Callable[[], Awaitable[Reply]]
Middleware = Callable[[Actor, Any, Next], Awaitable[Reply]]

NOT_OURS = N_("That button is not one of this bot's.")


class Unclaimed(QuizError):
    """An action id that names nothing of the feature its prefix routes to (maybe an older feature's)."""

    def __init__(self, refusal: QuizError | None = None) -> None:
        super().__init__(str(refusal) if refusal is not None else _(NOT_OURS))
        self.refusal = refusal  # what the person is told when no older owner claims it either


QUOTES = "\"'`‘’“”«»„‚"  # around a typed name: the person's way of naming it (an id holds none)


def typed_id(text: str) -> str:
    """A pack id as a person typed or pasted it: `PyTorch-Basics`, ` demo `, `"demo"`, with a zero-width
    space or a direction mark. Ids are lower case, without spaces, quotes or invisible characters
    (`packs.models.PACK_ID`), so the name can mean only that id; a name that shows nothing is left as
    typed (it names no pack)."""
    folded = shown(text).strip().strip(QUOTES).strip().lower()
    return folded if folded else text


def pack_ids(request: Any) -> Any:
    """The request with the packs it names as their ids (`typed_id`)."""
    changes: dict[str, Any] = {}
    pack = getattr(request, "pack", None)
    if isinstance(pack, str) and typed_id(pack) != pack:
        changes["pack"] = typed_id(pack)
    packs = getattr(request, "packs", None)
    if isinstance(packs, tuple) and any(isinstance(n, str) and typed_id(n) != n for n in packs):
        changes["packs"] = tuple(typed_id(n) if isinstance(n, str) else n for n in packs)
    if changes and is_dataclass(request) and not isinstance(request, type):
        return replace(request, **changes)
    return request


class Dispatcher:
    """Route each request to the one handler registered for it, through the middleware."""

    def __init__(self) -> None:
        self._requests: dict[type, Handler] = {}
        self._actions: dict[str, ActionHandler] = {}
        self._also: dict[str | type, list[Handler]] = {}
        self._middleware: list[Middleware] = []
        self._queries: dict[type, Callable[[Any], Awaitable[Any]]] = {}

    def request(self, kind: type, handler: Handler) -> None:
        """Answer requests of type `kind` with `handler` (a later registration replaces an earlier one)."""
        self._requests[kind] = handler

    def action(self, prefix: str, handler: ActionHandler) -> None:
        """Answer `Act` requests whose action id starts with `prefix:`."""
        if prefix in self._actions:
            raise ValueError(f"the action prefix {prefix!r} is registered twice")
        self._actions[prefix] = handler

    def also(self, key: str | type, handler: Handler) -> None:
        """Ask `handler` about what the owner of `key` (an action prefix, a request type) does not claim."""
        self._also.setdefault(key, []).append(handler)

    def query(self, kind: type, handler: Callable[[Any], Awaitable[Any]]) -> None:
        """Answer queries of type `kind` (see `bot.core.queries`) with `handler`."""
        self._queries[kind] = handler

    async def ask(self, query: Any) -> Any:
        handler = self._queries.get(type(query))
        if handler is None:
            raise QuizError(_("`{name}` is not set up in this bot.").format(name=type(query).__name__))
        return await handler(query)

    def use(self, middleware: Middleware) -> None:
        """Run `middleware` around every request and around the middleware added before it (the last added runs first)."""
        self._middleware.insert(0, middleware)

    def handles(self, kind: type) -> bool:
        return kind in self._requests

    def handler(self, kind: type) -> Handler | None:
        """The handler registered for `kind` (a feature extending another's answer wraps it)."""
        return self._requests.get(kind)

    @property
    def prefixes(self) -> tuple[str, ...]:
        return tuple(self._actions)

    async def dispatch(self, actor: Actor, request: Any) -> Reply:
        """Answer one request through the middleware. Raise QuizError for what the person must fix."""

        # Built from the innermost out, each `next` a plain closure: a helper that called itself by name
        # made a reference cycle on every request, left for the garbage collector to find.
        chain: Next = partial(self._route, actor, request)
        for middleware in reversed(self._middleware):
            chain = partial(middleware, actor, request, chain)
        return await chain()

    async def _route(self, actor: Actor, request: Any) -> Reply:
        key: str | type
        if isinstance(request, rq.Act):
            key = ax.prefix_of(request.action)
            handler: Handler | None = self._actions.get(key)
            if handler is None:
                raise QuizError(_(NOT_OURS))
        else:
            request = pack_ids(request)
            key = type(request)
            handler = self._requests.get(key)
            if handler is None:
                raise QuizError(_("`{name}` is not set up in this bot.").format(name=key.__name__))
        try:
            return await handler(actor, request)
        except Unclaimed as unclaimed:
            refusal: QuizError = unclaimed.refusal or unclaimed
        for other in self._also.get(key, ()):
            try:
                return await other(actor, request)
            except Unclaimed:
                continue
        raise refusal
