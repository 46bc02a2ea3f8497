"""Discord's API as the bot uses it: where it is, the invite link, token redaction, command sync, a click's two calls."""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import discord
from discord import app_commands
from discord.http import Route
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

from bot.core.i18n import _, supported, use_locale
from bot.logs import RedactSecrets
from bot.metrics import Metrics, acked, receiving

from .markup import CHOICE, COMMAND, OPTION, localized
from .origin import PLATFORM
from .render import Rendered

log = logging.getLogger(__name__)

HASH_KEY = "discord:commands:{application_id}"

# What the bot does in channels: read them, answer in them and their threads, with embeds and files.
BOT_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
    add_reactions=True,  # a code block answered under the daily post gets a reaction: feedback is in DMs
)

_WEBHOOK_TOKEN = re.compile(r"(/(?:webhooks|interactions)/\d+/)[A-Za-z0-9_.\-]+")


class SettingsStore(Protocol):
    async def get_setting(self, key: str) -> str | None: ...

    async def set_setting(self, key: str, value: str) -> None: ...


class RedactDiscordSecrets(RedactSecrets):
    """Also hide interaction and webhook tokens, which discord.py puts in the URLs it logs."""

    def add(self, secret: str) -> None:
        if len(secret) >= 6 and secret not in self._secrets:
            self._secrets.append(secret)

    def redact(self, text: str) -> str:
        return _WEBHOOK_TOKEN.sub(r"\1[redacted]", super().redact(text))


def invite_url(application_id: int) -> str:
    """The link that adds the bot to a server with the scopes and permissions it needs."""
    return discord.utils.oauth_url(
        application_id, permissions=BOT_PERMISSIONS, scopes=("bot", "applications.commands")
    )


def use_api(url: str) -> None:
    """Point discord.py at another Discord HTTP API (DISCORD_API_URL: tests, proxies)."""
    Route.BASE = url.rstrip("/")


def install_redaction(token: str) -> None:
    """Keep the bot token and interaction tokens out of every discord.py and adapter log record.

    A filter on a logger sees only the records made on that logger, so each one gets it.
    """
    package = "bot.adapters.discord"
    names = [n for n in logging.root.manager.loggerDict if n == "discord" or n.startswith("discord.")]
    ours = [n for n in logging.root.manager.loggerDict if n.startswith(package)]
    for name in {*names, *ours, package}:
        logger = logging.getLogger(name)
        existing = next((f for f in logger.filters if isinstance(f, RedactDiscordSecrets)), None)
        if existing is None:
            logger.addFilter(RedactDiscordSecrets([token]))
        else:
            existing.add(token)


async def tree_hash(tree: app_commands.CommandTree[Any]) -> str:
    """Hash the commands as Discord receives them, so any change in name, option, text or translation shows."""
    translator = tree.translator
    if translator is not None:
        payload = [await command.get_translated_payload(tree, translator) for command in tree.get_commands()]
    else:
        payload = [command.to_dict(tree) for command in tree.get_commands()]
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


async def sync_commands(
    tree: app_commands.CommandTree[Any],
    store: SettingsStore,
    *,
    application_id: int,
    guild_ids: Sequence[int],
) -> str:
    """Sync the tree and return what was done: "guilds", "global" or "unchanged" (or "failed")."""
    if guild_ids:
        for guild_id in guild_ids:
            guild = discord.Object(id=guild_id)
            tree.copy_global_to(guild=guild)
            try:
                synced = await tree.sync(guild=guild)
            except discord.HTTPException as exc:
                log.error(
                    "could not sync commands to guild %s (%s %s): is the bot in it, invited with the "
                    "applications.commands scope?",
                    guild_id,
                    exc.status,
                    exc.code,
                )
                continue
            log.info("synced %d command(s) to guild %s", len(synced), guild_id)
        return "guilds"
    key = HASH_KEY.format(application_id=application_id)
    digest = await tree_hash(tree)
    if await store.get_setting(key) == digest:
        log.info("commands unchanged since the last global sync; not syncing")
        return "unchanged"
    try:
        synced = await tree.sync()
    except discord.HTTPException as exc:
        log.error(
            "could not sync commands globally (%s %s); will try again at the next start", exc.status, exc.code
        )
        return "failed"
    await store.set_setting(key, digest)
    log.info("synced %d command(s) globally (they may take a while to show everywhere)", len(synced))
    return "global"

# ----------------------------------------------------------------- command localizations
# discord.py asks the tree's `app_commands.Translator` for each name and description (of a group, a
# command, an option, a choice) in each Discord locale when the tree is synced; this one answers from
# the same gettext catalogs as every other text. Names are translated in the catalog's contexts
# `command`, `option` and `choice` (`markup.py` marks them); Discord still sends the English names in
# interactions. A description with numbers in it is written `L_("... ({least}-{most}) ...", least=1,
# most=50)`: the catalog holds the template, Discord gets it filled in.


def L_(message: str, **values: Any) -> app_commands.locale_str:
    """A command text for the catalog (extracted like `_`), English filled in, translated at sync."""
    return app_commands.locale_str(message.format(**values), template=message, values=values)


_NAME_CONTEXTS = {
    app_commands.TranslationContextLocation.command_name: COMMAND,
    app_commands.TranslationContextLocation.group_name: COMMAND,
    app_commands.TranslationContextLocation.parameter_name: OPTION,
    app_commands.TranslationContextLocation.choice_name: CHOICE,
}


class CatalogTranslator(app_commands.Translator):
    """Translate command names and texts with the bot's catalogs; a language the bot does not speak gets none."""

    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        code = supported(locale.value)
        if code is None or code == "en":
            return None
        kind = _NAME_CONTEXTS.get(context.location)
        if kind is not None:
            return localized(kind, string.message, code)
        template = str(string.extras.get("template", string.message))
        values = string.extras.get("values") or {}
        with use_locale(code):
            translated = _(template)
        if translated == template:
            return None
        return translated.format(**values)


# -------------------- acks --------------------
# The acknowledgement of a Discord interaction, for the metrics: its callback, as it succeeds.
#
# Every interaction response (a reply, an edit, a defer, a form, an autocomplete's choices) goes
# through discord.py's webhook adapter's `create_interaction_response`; the adapter in use is read
# from its context variable at each response, so setting one that marks the event acknowledged
# (bot.metrics.acked) once the callback returned covers them all. An aiohttp trace did this before,
# at a cost on every HTTP request the bot makes: aiohttp builds each signal's parameters for every
# request once any trace is configured.

class AckingWebhookAdapter(AsyncWebhookAdapter):
    """discord.py's webhook adapter, marking the event acknowledged once its interaction callback succeeded."""

    def create_interaction_response(self, *args: Any, **kwargs: Any) -> Any:
        sent = super().create_interaction_response(*args, **kwargs)

        async def acking() -> Any:
            result = await sent
            acked()  # an HTTP error raised above: not acknowledged
            return result

        return acking()


def time_acknowledgements() -> None:
    """Have interaction callbacks made from here on (in this context and the tasks it starts) mark their event acknowledged."""
    async_context.set(AckingWebhookAdapter())  # type: ignore[no-untyped-call]


INTERACTION_KINDS = {2: "command", 3: "action", 4: "autocomplete", 5: "form"}  # metrics' names of the types


def time_events(parsers: dict[str, Callable[[Any], None]], metrics: Metrics | None) -> None:
    """Start each interaction's and message's clock as discord.py receives it from the gateway.

    The acknowledgement is the interaction callback (`time_acknowledgements`); `Inbound`
    marks the reply once the answer is delivered. Without metrics nothing changes.
    """
    if metrics is None:
        return

    def timed(parse: Callable[[Any], None], kind: Callable[[Any], str]) -> Callable[[Any], None]:
        def parse_timed(data: Any) -> None:
            with receiving(metrics, PLATFORM, kind(data)):
                parse(data)  # the tasks discord.py starts for the event inherit its clock

        return parse_timed

    parsers["INTERACTION_CREATE"] = timed(parsers["INTERACTION_CREATE"], lambda d: INTERACTION_KINDS.get(d.get("type"), "other"))
    parsers["MESSAGE_CREATE"] = timed(parsers["MESSAGE_CREATE"], lambda d: "message")


# -------------------- a click's calls --------------------
# A click's two Discord calls, made through discord.py's webhook adapter without its message objects.
#
# A click is answered by editing the clicked message (the interaction's callback) and by sending the
# next item as a follow-up. discord.py's `InteractionResponse.edit_message` asks Discord to send the
# edited message back (`with_response`) and builds an `InteractionCallbackResponse` from it, and
# `Webhook.send(wait=True)` builds a `WebhookMessage` (its embeds, components and author) from the
# message Discord returns; the bot reads none of that but the new message's id. Here the same JSON
# body goes through the same adapter (its rate limits, retries and `HTTPException`s, and the metrics'
# acknowledgement), the callback asks for nothing back, and the follow-up's id is read from the
# returned JSON. A message with files is sent by discord.py's own calls (multipart).

NO_MENTIONS = discord.AllowedMentions.none().to_dict()  # as the client is configured: no message pings anyone
EPHEMERAL = 64  # the message flag


def message_payload(rendered: Rendered, *, edit: bool, ephemeral: bool = False) -> dict[str, Any]:
    """The message's JSON as discord.py would send it; an edit without components removes the old ones."""
    body: dict[str, Any] = {"embeds": [embed.to_dict() for embed in rendered.embeds]}
    if rendered.view is not None:
        body["components"] = rendered.view.to_components()
    elif edit:
        body["components"] = []
    if ephemeral:
        body["flags"] = EPHEMERAL
    body["allowed_mentions"] = NO_MENTIONS
    return body


async def edit_clicked(interaction: discord.Interaction[Any], rendered: Rendered) -> None:
    """Answer a click on a message by showing `rendered` in its place (the callback's "update message")."""
    if rendered.files:
        await interaction.response.edit_message(**rendered.edit_kwargs())
        return
    http = interaction._state.http
    route = Route(
        "POST", "/interactions/{webhook_id}/{webhook_token}/callback",
        webhook_id=interaction.id, webhook_token=interaction.token,
    )  # fmt: skip
    body = {"type": discord.InteractionResponseType.message_update.value, "data": message_payload(rendered, edit=True)}
    await async_context.get().request(
        route, session=interaction._session, proxy=http.proxy, proxy_auth=http.proxy_auth, payload=body
    )
    # discord.py's own record that the interaction is answered: `response.is_done()` reads it
    interaction.response._response_type = discord.InteractionResponseType.message_update
    acked()


async def follow_up(interaction: discord.Interaction[Any], rendered: Rendered, *, ephemeral: bool) -> int:
    """Send `rendered` as a follow-up of an answered interaction; the new message's id."""
    if rendered.files:
        sent = await interaction.followup.send(wait=True, ephemeral=ephemeral, **rendered.send_kwargs())
        return sent.id
    http = interaction._state.http
    data = await async_context.get().execute_webhook(
        interaction.application_id, interaction.token, session=interaction._session, proxy=http.proxy,
        proxy_auth=http.proxy_auth, payload=message_payload(rendered, edit=False, ephemeral=ephemeral), wait=True,
        with_components=rendered.view is not None,
    )  # fmt: skip
    assert data is not None  # with wait=True Discord returns the message
    return int(data["id"])
