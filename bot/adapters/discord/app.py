"""The Discord client: wires the /quiz commands, lasting components, forms and messages to `Inbound`."""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

import discord
import yarl
from discord import app_commands
from discord.gateway import DiscordWebSocket

from bot.core import QuizService
from bot.core import queries as q
from bot.core.i18n import _, use_locale
from bot.core.race import ChannelPost, Outbox
from bot.metrics import Metrics

from .api import (
    CatalogTranslator,
    SettingsStore,
    install_redaction,
    invite_url,
    sync_commands,
    time_acknowledgements,
    time_events,
    use_api,
)
from .commands import build_quiz_group
from .deliver import APOLOGY
from .inbound import Inbound
from .origin import PLATFORM, keep_clicked_raw, note_language
from .posts import DiscordPoster, post_race
from .strays import OptionMismatch, QuizCommandTree, has_user, on_edit, refuse_without_user

if TYPE_CHECKING:
    from bot.app import App
    from bot.settings import Settings

log = logging.getLogger(__name__)

def intents(*, message_content: bool = True) -> discord.Intents:
    """Guilds (channels and threads), messages in DMs and guilds, and their content (privileged)."""
    chosen = discord.Intents.none()
    chosen.guilds = True
    chosen.dm_messages = True
    chosen.guild_messages = True
    chosen.message_content = message_content
    return chosen


def unlink(interaction: discord.Interaction[Any]) -> None:
    """Drop a handled interaction's response and follow-up objects, which refer back to it.

    Linked, the interaction and all it holds (the clicked message's payload, the member, the guild)
    wait for the garbage collector; unlinked, reference counting frees them at once.
    These are discord.py's own cached attributes: were they renamed, nothing breaks, and the objects
    are merely collected later.
    """
    for cached in ("_cs_response", "_cs_followup"):
        with contextlib.suppress(AttributeError):
            delattr(interaction, cached)


class QuizBotClient(discord.Client):
    def __init__(
        self,
        *,
        service: QuizService,
        settings_store: SettingsStore,
        guild_ids: list[int] | None = None,
        api_url: str | None = None,
        message_content: bool = True,
        metrics: Metrics | None = None,
        **client_options: Any,
    ) -> None:
        if metrics is not None:
            time_acknowledgements()  # each interaction callback marks its event acknowledged
        super().__init__(
            intents=intents(message_content=message_content),
            allowed_mentions=discord.AllowedMentions.none(),
            # No message cache: the bot never looks a message up in it (an answer, a click and a
            # post carry what they need), and discord.py would keep the last 1,000 messages it saw.
            max_messages=None,
            **client_options,
        )
        keep_clicked_raw(self._connection.parsers)  # no `Message` of the clicked message: the bot reads its payload
        time_events(self._connection.parsers, metrics)  # receipt -> callback (ack) and -> answer delivered
        self.handler = Inbound(service=service, settings_store=settings_store)
        self.tree: app_commands.CommandTree[QuizBotClient] = QuizCommandTree(self)
        self.tree.add_command(build_quiz_group(self.handler))
        self.tree.on_error = self._on_command_error  # type: ignore[method-assign]
        self.guild_ids = list(guild_ids or [])
        self.api_url = api_url
        self.sync_result: str | None = None
        self.outbox: Outbox | None = None  # races' posts: attached once logged in (`setup_hook`)

    async def setup_hook(self) -> None:
        install_redaction(self.http.token or "")
        if self.api_url:
            # Another Discord API (tests, a proxy) also names the gateway to connect to.
            _shards, url, _limit = await self.http.get_bot_gateway()
            DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)
        assert self.application_id is not None
        await self.tree.set_translator(CatalogTranslator())  # before the sync: descriptions in every language
        self.sync_result = await sync_commands(
            self.tree, self.handler.store, application_id=self.application_id, guild_ids=self.guild_ids
        )
        if self.outbox is not None:  # logged in: the posts a restarted race made meanwhile waited until now
            self.outbox.attach("discord", self.publish_race)

    def connected(self) -> bool:
        """Whether the gateway session is up (/readyz's "platforms")."""
        return self.is_ready() and not self.is_closed()

    async def on_ready(self) -> None:
        log.info("connected to Discord as %s; invite: %s", self.user, invite_url(self.application_id or 0))

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        # Commands are dispatched by the tree. Buttons, menus and forms come here and are routed by their
        # custom_id: none is kept in memory, so a click or form on a message sent before a restart is
        # still answered (and discord.py builds no view of the clicked message to find its item).
        if interaction.type is discord.InteractionType.component:
            handle = self.handler.click
        elif interaction.type is discord.InteractionType.modal_submit:
            handle = self.handler.modal
        else:
            return  # a command: the tree answers it, in a task of its own
        if not has_user(interaction):
            await refuse_without_user(interaction)
            return
        try:
            await handle(interaction)
        finally:
            unlink(interaction)  # handled here and nowhere else: nothing uses it after this

    async def on_message(self, message: discord.Message) -> None:
        await self.handler.message(message)

    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        await on_edit(self.handler.service, self.handler.refs, payload.message, payload.cached_message)  # raw: uncached too

    async def publish_race(self, post: ChannelPost) -> None:
        """Post a race's reveal and next round (or final table) to its channel: the race service's port."""
        async def remember(race_id: str, anchor: dict[str, str]) -> None:
            await self.handler.service.ask(q.RememberRace(race_id, anchor))

        await post_race(self, post, remember)

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        log.exception("error in the Discord event %s", event_method)

    async def _on_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        name = interaction.command.qualified_name if interaction.command else "?"
        try:
            language = await note_language(self.handler.service, interaction)  # the learner's choice, when remembered
        except Exception:  # an apology must not fail for its language
            language = interaction.locale.value
        if isinstance(error, app_commands.CommandSignatureMismatch | app_commands.CommandNotFound):
            why = error.problem if isinstance(error, OptionMismatch) else type(error).__name__
            log.warning("/%s does not match the registered commands (%s)", name, why)
            with use_locale(language):
                text = _("The bot's commands were just updated; please try again in a minute.")
        else:
            log.error("error in /%s", name, exc_info=error)
            with use_locale(language):
                text = _(APOLOGY)
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)
        except discord.HTTPException as exc:
            log.warning("could not apologise (%s %s)", exc.status, exc.code)


class ShardedQuizBotClient(QuizBotClient, discord.AutoShardedClient):
    """The same client over several gateway shards (DISCORD_SHARD_COUNT, DISCORD_SHARDS)."""


def create_client(app: App, settings: Settings, *, message_content: bool = True) -> QuizBotClient:
    """Build the client; a sharded one when DISCORD_SHARD_COUNT is set (this process runs DISCORD_SHARDS)."""
    options: dict[str, Any] = {}
    kind: type[QuizBotClient] = QuizBotClient
    if settings.discord_shard_count is not None:
        kind = ShardedQuizBotClient
        options["shard_count"] = settings.discord_shard_count
        options["shard_ids"] = list(settings.discord_shards) or None  # None: every shard
    client = kind(
        service=app.service,
        settings_store=app.repository,
        guild_ids=list(settings.discord_guild_ids),
        api_url=settings.discord_api_url,
        message_content=message_content,
        metrics=app.metrics,
        **options,
    )
    app.platforms.attach(PLATFORM, client.connected)  # /readyz
    client.outbox = app.outbox  # races post their rounds through this client, once it has logged in
    return client


async def run_discord(app: App, settings: Settings) -> None:
    """Run the Discord front end until cancelled."""
    if settings.discord_token is None:
        raise RuntimeError("DISCORD_TOKEN is not set")
    token = settings.discord_token.get_secret_value()
    if settings.discord_api_url:
        use_api(settings.discord_api_url)
    install_redaction(token)  # again in setup_hook, for loggers created since
    message_content = True
    while True:
        client = create_client(app, settings, message_content=message_content)
        await app.posters.add(PLATFORM, DiscordPoster(client))  # the daily question's posts and DMs
        try:
            async with client:
                await client.start(token)
            return
        except discord.PrivilegedIntentsRequired:
            if not message_content:
                raise
            log.error(
                "The Message Content intent is off in the Developer Portal (Bot > Privileged Gateway Intents). "
                "Running without it: code blocks in quiz threads are not read; DMs and forms still work."
            )
            message_content = False
        except discord.LoginFailure:
            log.error(
                "Discord refused DISCORD_TOKEN: copy the bot token again from the Developer Portal (Bot > Reset Token)."
            )
            raise
