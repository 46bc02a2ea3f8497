"""Who gets which language, and `/quiz language`: resolved once per request, as middleware.

A learner's texts are in, first found: their own choice (`/quiz language <code>`, a setting keyed
`PLATFORM:language:USER` so my-data export and delete find it), the language the platform says
their client uses (Discord's interaction locale; Slack's `users.info` locale, asked through a
lookup the adapter registers), the server's or workspace's default (`/quiz language server <code>`,
else the default the platform gave, such as Discord's preferred locale), else English. Public posts
(a race board, a leaderboard, the daily post) use the server's language (`i18n.public()`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import partial
from typing import Any

from . import queries as q
from . import requests as rq
from .admin import Admins
from .dispatch import Dispatcher, Next
from .errors import DatabaseFault, QuizError, UnknownName
from .i18n import DEFAULT, LANGUAGES, _, language_name, supported, use_locale, use_locales
from .model import Actor, amended
from .ports import Repository
from .replies import Reply, Tone, cmd, notice
from .shared_reads import SharedReads

log = logging.getLogger(__name__)

UserLocale = Callable[[Actor], Awaitable[str | None]]
AUTO = "auto"  # `/quiz language auto`: forget the choice, follow the platform again
MAX_REMEMBERED = 10_000  # learners and servers whose languages this process remembers
# A learner's or a server's language is read again after this long: it is asked on every request, and
# another process may have changed it (this process forgets its own entry when it changes one).
SETTING_SECONDS = 30.0


def learner_key(platform: str, user_id: str) -> str:
    return f"{platform}:language:{user_id}"


def server_key(platform: str, scope: str) -> str:
    return f"language-server:{platform}:{scope}"


def hint_key(platform: str, scope: str) -> str:
    """Where the platform's default for a server is kept, for posts made outside any request."""
    return f"language-hint:{platform}:{scope}"


class Locales:
    """Resolve the learner's and the server's language; keep the choices made with `/quiz language`."""

    def __init__(self, repository: Repository, admins: Admins) -> None:
        self._repo = repository
        self._admins = admins
        self._lookups: dict[str, UserLocale] = {}
        self._hints: dict[tuple[str, str], str] = {}  # server defaults already stored by this process
        self._learners: dict[tuple[str, str], tuple[float, str | None]] = {}  # the learner's choice, as read at a time
        # The admins' choice and the stored platform default, as read at a time.
        self._servers: dict[tuple[str, str], tuple[float, tuple[str | None, str | None]]] = {}
        self._reading: SharedReads[tuple[str, str], tuple[str | None, str | None]] = SharedReads()  # server reads under way

    def lookup(self, platform: str, user_locale: UserLocale) -> None:
        """Ask `user_locale` for a person's platform language when their actor carries none (Slack)."""
        self._lookups[platform] = user_locale

    def forget(self, platform: str, user_id: str) -> None:
        """Forget what this process remembers of a learner's choice (their data was deleted)."""
        self._learners.pop((platform, user_id), None)

    def register(self, dispatcher: Dispatcher) -> None:
        dispatcher.request(rq.Language, self.on_language)
        dispatcher.query(q.LearnerLanguage, self._learner_language)
        dispatcher.query(q.ServerLanguage, self._server_language)
        dispatcher.query(q.RememberedLanguage, self._remembered)
        dispatcher.query(q.PlatformLocales, self._platform_locales)
        dispatcher.use(self)

    async def _learner_language(self, query: q.LearnerLanguage) -> str:
        return (await self._both(query.actor))[1]

    async def _server_language(self, query: q.ServerLanguage) -> str:
        try:
            return await self.server(query.platform, query.scope)
        except DatabaseFault:
            return DEFAULT

    async def _both(self, actor: Actor) -> tuple[str, str]:
        """The server's and the learner's language; while the database fails, what the platform says.

        A language is never worth failing a request for: the request itself meets the fault (if it
        needs the database) and the person is told that, in the platform's language.
        """
        try:
            server = await self.server(actor.platform, actor.scope, actor.server_locale)
            return server, await self.learner(actor, server)
        except DatabaseFault:
            server = supported(actor.server_locale) or DEFAULT
            return server, supported(actor.locale) or server

    async def _platform_locales(self, query: q.PlatformLocales) -> None:
        self.lookup(query.platform, query.lookup)

    async def __call__(self, actor: Actor, request: Any, next_: Next) -> Reply:
        server, learner = await self._both(actor)
        with use_locales(learner, server):
            try:
                reply = await next_()
            except QuizError as exc:
                exc.locale = learner
                raise
        # A reply posted for everyone (a race's start, the leaderboard) gets the front end's words in the server's language.
        return amended(reply, locale=learner if reply.private else server)

    async def learner(self, actor: Actor, server: str | None = None) -> str:
        """The language of `actor`'s private replies."""
        chosen = await self._chosen_by(actor.platform, actor.user_id)
        if chosen:
            return chosen
        platform = supported(actor.locale)
        if platform is None and actor.platform in self._lookups:
            try:
                platform = supported(await self._lookups[actor.platform](actor))
            except Exception:  # the platform did not say: the server's language will do
                log.exception("could not ask %s for a user's locale", actor.platform)
        if platform:
            return platform
        return server or await self.server(actor.platform, actor.scope, actor.server_locale)

    async def server(self, platform: str, scope: str, hint: str | None = None) -> str:
        """The language of a server's public posts: the admins' choice, else the platform's default."""
        chosen, stored_hint = await self._stored_for_server(platform, scope)
        if chosen:
            return chosen
        given = supported(hint)
        if given:
            await self._remember_hint(platform, scope, given)
            return given
        return stored_hint or DEFAULT

    async def _remembered(self, query: q.RememberedLanguage) -> str | None:
        return self.remembered(query.platform, query.user_id)

    def remembered(self, platform: str, user_id: str) -> str | None:
        """The learner's own choice if this process read it in the last SETTING_SECONDS, else None.

        No database read: for a note shown before the core answers (Discord's "working" note), where
        a miss falls back to the platform's language.
        """
        cached = self._learners.get((platform, user_id))
        if cached is not None and time.monotonic() - cached[0] < SETTING_SECONDS:
            return cached[1]
        return None

    async def _chosen_by(self, platform: str, user_id: str) -> str | None:
        """The learner's own choice, read at most every SETTING_SECONDS: it is asked on every request."""
        now = time.monotonic()
        cached = self._learners.get((platform, user_id))
        if cached is not None and now - cached[0] < SETTING_SECONDS:
            return cached[1]
        chosen = supported(await self._repo.get_setting(learner_key(platform, user_id)))
        if len(self._learners) > MAX_REMEMBERED:
            self._learners.clear()
        self._learners[(platform, user_id)] = (now, chosen)
        return chosen

    async def _stored_for_server(self, platform: str, scope: str) -> tuple[str | None, str | None]:
        """The admins' choice and the platform's stored default, read at most every SETTING_SECONDS.

        Requests that find them unread at once (a server's learners after a start, or after the
        entry aged) share one read.
        """
        key = (platform, scope)
        cached = self._servers.get(key)
        if cached is not None and time.monotonic() - cached[0] < SETTING_SECONDS:
            return cached[1]
        return await self._reading.read(key, partial(self._read_server, platform, scope), partial(self._keep_server, key))

    async def _read_server(self, platform: str, scope: str) -> tuple[str | None, str | None]:
        chosen = supported(await self._repo.get_setting(server_key(platform, scope)))
        stored_hint = None if chosen else supported(await self._repo.get_setting(hint_key(platform, scope)))
        return chosen, stored_hint

    def _keep_server(self, key: tuple[str, str], found: tuple[str | None, str | None]) -> None:
        """Remember what a read found (not called when a change was made while it ran: `_forget_server`)."""
        if len(self._servers) > MAX_REMEMBERED:
            self._servers.clear()
        self._servers[key] = (time.monotonic(), found)

    def _forget_server(self, platform: str, scope: str) -> None:
        """Read a server's languages again on its next request (this process changed one)."""
        self._servers.pop((platform, scope), None)
        self._reading.forget((platform, scope))  # a read under way may have missed the change

    async def _remember_hint(self, platform: str, scope: str, code: str) -> None:
        """Keep the platform's default for posts no request causes (the daily question), once per change."""
        if self._hints.get((platform, scope)) == code:
            return
        if await self._repo.get_setting(hint_key(platform, scope)) != code:
            await self._repo.set_setting(hint_key(platform, scope), code)
            self._forget_server(platform, scope)
        if len(self._hints) > MAX_REMEMBERED:
            self._hints.clear()
        self._hints[(platform, scope)] = code

    async def on_language(self, actor: Actor, request: rq.Language) -> Reply:
        """`/quiz language [code]`, `/quiz language server [code]`: show or set."""
        if request.code is None:
            return self._show(await self.learner(actor), await self.server(actor.platform, actor.scope, actor.server_locale))
        code = request.code.strip().lower()
        if code != AUTO and supported(code) is None:
            raise UnknownName("language", request.code, [*LANGUAGES, AUTO])
        if request.server:
            self._admins.require(actor, _("set the server's language"))
            await self._repo.set_setting(server_key(actor.platform, actor.scope), "" if code == AUTO else code)
            self._forget_server(actor.platform, actor.scope)
            chosen = await self.server(actor.platform, actor.scope, actor.server_locale)
            with use_locale(chosen):
                return notice(
                    _("Public posts here (the daily question, races, leaderboards) are now in {language}.").format(
                        language=language_name(chosen)
                    ),
                    tone=Tone.SUCCESS,
                )
        await self._repo.set_setting(learner_key(actor.platform, actor.user_id), "" if code == AUTO else code)
        self._learners.pop((actor.platform, actor.user_id), None)
        chosen = await self.learner(actor)
        with use_locale(chosen):
            if code == AUTO:
                text = _("Your replies now follow your app's language: {language}.")
            else:
                text = _("Your replies are now in {language}.")
            return replace(notice(text.format(language=language_name(chosen)), tone=Tone.SUCCESS), locale=chosen)

    @staticmethod
    def _show(learner: str, server: str) -> Reply:
        names = ", ".join(f"`{code}` ({name})" for code, name in LANGUAGES.items())
        text = _(
            "Your replies are in {language}; public posts here are in {server}.\n"
            "Choose with {command} and one of: {names}; `auto` follows your app's language again."
        ).format(language=language_name(learner), server=language_name(server), command=cmd("language"), names=names)
        return notice(text)
