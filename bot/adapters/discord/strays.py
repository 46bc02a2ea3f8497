"""Requests that do not fit. Interactions with no user named, or options that are not the registered command's.

Discord checks options against the commands it has registered; when that registration is older or
newer than this code (a sync pending, another version of the bot), or a payload is malformed, an
option may arrive with another type, a value outside its choices, or a user or file Discord did not
resolve. discord.py would pass some of these to the command as they are, and fail on others with a
traceback; here each is refused before any command runs, as a signature mismatch (the tree's error
handler says the commands were just updated, in one log line), and autocomplete gets no choices.

Also an edited message (MESSAGE_UPDATE) holding code in the bot's DM: it is not graded, and the
learner is told so (`on_edit`), as on Slack.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any

import discord
from discord import app_commands
from discord.enums import AppCommandOptionType as T

from bot.core import QuizService
from bot.core import queries as q
from bot.core.i18n import _, use_locale
from bot.core.replies import edit_not_graded
from bot.metrics import replied

from .deliver import APOLOGY, ItemRefs
from .inbound import REPEATED
from .origin import actor_of
from .posts import ChannelResponder

log = logging.getLogger(__name__)
KEPT_COMMANDS = 5000  # ids of commands taken lately: a gateway resume replays only recent events

GROUPS = (T.subcommand.value, T.subcommand_group.value)
RESOLVED = {  # an option of these types names something Discord sends in the payload's `resolved`
    T.user.value: ("users", "members"),
    T.channel.value: ("channels",),
    T.role.value: ("roles",),
    T.mentionable.value: ("users", "members", "roles"),
    T.attachment.value: ("attachments",),
}


def has_user(interaction: discord.Interaction[Any]) -> bool:
    """Whether the interaction names who acted (Discord always sends `member` or `user`; a broken payload may not).

    The concrete classes, not the `discord.abc.User` protocol: a protocol's isinstance walks its
    attributes, on every interaction.
    """
    return isinstance(getattr(interaction, "user", None), discord.User | discord.Member)


async def refuse_without_user(interaction: discord.Interaction[Any]) -> None:
    """Answer an interaction that names no user: no one to act for, so an apology and one log line."""
    log.warning("a %s interaction names no user (no member or user in it); answered with an apology", interaction.type.name)
    try:
        if interaction.type is discord.InteractionType.autocomplete:
            await interaction.response.autocomplete([])
        else:
            with use_locale(interaction.locale.value):
                await interaction.response.send_message(_(APOLOGY), ephemeral=True)
    except discord.HTTPException as exc:
        log.warning("could not answer it (%s %s)", exc.status, exc.code)


def leaf_options(data: Any) -> list[dict[str, Any]]:
    """The options given to the command itself, below its subcommand group and subcommand."""
    options = data.get("options") if isinstance(data, dict) else None
    while isinstance(options, list) and len(options) == 1 and isinstance(options[0], dict) and options[0].get("type") in GROUPS:
        options = options[0].get("options")
    return [o for o in options if isinstance(o, dict)] if isinstance(options, list) else []


def _fits_type(kind: int, value: Any, resolved: dict[str, Any]) -> bool:
    if kind == T.string.value:
        return isinstance(value, str)
    if kind == T.integer.value:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == T.number.value:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == T.boolean.value:
        return isinstance(value, bool)
    if kind in RESOLVED:
        return any(isinstance(resolved.get(key), dict) and str(value) in resolved[key] for key in RESOLVED[kind])
    return False


def misfit(command: app_commands.Command[Any, ..., Any], data: Any, *, autocomplete: bool) -> str | None:
    """Say what about the options does not fit `command` (for the log), or None when they all do.

    Autocomplete sends what is typed so far, so only names and types are checked there; a command's
    options must also be among their choices and, for users and files, resolved by Discord.
    """
    params = {param.display_name: param for param in command.parameters}
    resolved = data.get("resolved") if isinstance(data.get("resolved"), dict) else {}
    options = leaf_options(data)
    if autocomplete and not any(option.get("focused") for option in options):
        return "no option is focused"
    for option in options:
        name = str(option.get("name"))[:40]
        param = params.get(name)
        if param is None:
            return f"no option {name!r}"
        if option.get("type") != param.type.value:
            return f"option {name!r} of type {option.get('type')!r}, not {param.type.value}"
        value = option.get("value")
        if autocomplete:
            if option.get("focused") and not param.autocomplete:
                return f"option {name!r} has no autocomplete"
            continue
        if not _fits_type(param.type.value, value, resolved):
            return f"option {name!r} has a value that is not a {param.type.name}"
        if param.choices and value not in {choice.value for choice in param.choices}:
            return f"option {name!r} has a value outside its choices"
    return None


class OptionMismatch(app_commands.CommandSignatureMismatch):
    """Options that do not fit the command: answered as any signature mismatch, and `problem` is logged."""

    def __init__(self, command: app_commands.Command[Any, ..., Any], problem: str) -> None:
        super().__init__(command)
        self.problem = problem


class QuizCommandTree(app_commands.CommandTree[Any]):
    """The command tree, refusing interactions that name no user or whose options do not fit the command,
    and a command delivered again (a gateway resume replays it)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._taken: OrderedDict[int, None] = OrderedDict()

    def _repeated(self, interaction: discord.Interaction[Any]) -> bool:
        """Whether this command was taken before in this process: a replayed `/quiz skip` or `stop` must not act twice.

        `/quiz skip` and `/quiz stop` also carry their interaction id to the core, which knows a repeat
        in any process; this saves the work. Discord refuses a second answer anyway, so the repeat is
        dropped with one log line.
        """
        if interaction.type is not discord.InteractionType.application_command:
            return False
        if interaction.id in self._taken:
            return True
        self._taken[interaction.id] = None
        while len(self._taken) > KEPT_COMMANDS:
            self._taken.popitem(last=False)
        return False

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        if not has_user(interaction):
            await refuse_without_user(interaction)
            return False
        if self._repeated(interaction):
            log.warning(REPEATED, interaction.id)
            return False
        command = interaction.command
        if not isinstance(command, app_commands.Command):
            return True  # not found: the tree raises CommandNotFound, answered by its error handler
        completing = interaction.type is discord.InteractionType.autocomplete
        problem = misfit(command, interaction.data or {}, autocomplete=completing)
        if problem is None:
            return True
        if not completing:
            raise OptionMismatch(command, problem)  # the tree's error handler answers, in one line
        log.warning("autocomplete for /%s does not match the registered commands (%s)", command.qualified_name, problem)
        try:
            await interaction.response.autocomplete([])
        except discord.HTTPException as exc:
            log.warning("could not answer it (%s %s)", exc.status, exc.code)
        return False


async def on_edit(service: QuizService, refs: ItemRefs, message: discord.Message, before: discord.Message | None) -> None:
    """An edited message holding code in the bot's DM: not graded, and the learner is told so, where they wrote.

    Why edits are not graded: `replies.edit_not_graded`. An update that is no edit (a link preview added), the same text, a bot's message and an
    edit in a guild channel (where code may be anyone's conversation) stay silent.
    """
    in_guild = message.guild is not None or getattr(message.channel, "guild_id", None) is not None  # cached or not
    if message.author.bot or message.webhook_id is not None or in_guild or message.edited_at is None:
        return
    if "```" not in message.content or (before is not None and before.content == message.content):
        return
    actor = actor_of(message.author, None, message.channel.id, None)
    log.info("an edited code message from %s; told edits are not graded", actor.user_id)
    try:
        language: str = await service.ask(q.LearnerLanguage(actor))
        with use_locale(language):
            told = edit_not_graded()
        await ChannelResponder(message, refs).deliver(told)
    except Exception:
        log.exception("could not tell a learner that edits are not graded")
    replied()
