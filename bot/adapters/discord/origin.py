"""Who acted and where, and the lasting components that turn any click back into a core action.

The custom_id of every quiz button and menu is the core's action id, and the state it names lives
in the database, so a click is routed by its custom_id alone (`Inbound.click`), also on a message
sent before a restart. A stopped `View` carries the components; nothing is kept in memory per message.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.core import Actor, QuizService
from bot.core import actions as ax
from bot.core import queries as q
from bot.core.daily import actions as dx
from bot.core.model import Anchor, Where
from bot.core.race import actions as rx

PLATFORM = "discord"

QUIZ_ID = re.compile(rf"(?:{'|'.join(map(re.escape, ax.PREFIXES))}):\S+")  # quizzes, daily posts, confirmations
PAGE_PREFIX = "qzp"  # the adapter's own step buttons: qzp:<session>:<page>
RUN_FORM_ID = "qzr:run"  # the /quiz run form


RACE_ID = re.compile(rf"{re.escape(rx.PREFIX)}:\S+")  # a race's controls: rc:<race>:<round>:<verb>[:<arg>]


def is_quiz_id(custom_id: str) -> bool:
    """Say whether a custom_id is one of the core's action ids."""
    return QUIZ_ID.fullmatch(custom_id) is not None


def is_race_id(custom_id: str) -> bool:
    """Say whether a custom_id is a race control's action id (it goes to the core like a quiz's)."""
    return RACE_ID.fullmatch(custom_id) is not None


def actor_of(
    user: discord.abc.User,
    guild_id: int | None,
    channel_id: int | None,
    permissions: discord.Permissions | None,
    *,
    locale: str | None = None,
    server_locale: str | None = None,
) -> Actor:
    """Build the core's Actor: the guild is the scope (or "dm"); Manage Server makes an admin."""
    is_admin = (
        guild_id is not None
        and permissions is not None
        and (permissions.manage_guild or permissions.administrator)
    )
    return Actor(
        platform=PLATFORM,
        scope=str(guild_id) if guild_id is not None else "dm",
        user_id=str(user.id),
        name=user.display_name,
        is_admin=is_admin,
        channel_id=str(channel_id) if channel_id is not None else None,
        locale=locale,
        server_locale=server_locale,
    )


def modal_text(data: Any) -> str:
    """Return the text typed in a submitted modal (its first text input)."""
    stack = list(reversed((data or {}).get("components", [])))
    while stack:
        component = stack.pop()
        if component.get("type") == 4 and "value" in component:
            return str(component["value"])
        if "component" in component:
            stack.append(component["component"])
        stack.extend(reversed(component.get("components", [])))
    return ""


def message_ids(message: discord.Message | None) -> set[str]:
    """Return the custom_ids of a message's components."""
    ids: set[str] = set()
    if message is None:
        return ids
    stack: list[Any] = list(message.components)
    while stack:
        component = stack.pop()
        custom_id = getattr(component, "custom_id", None)
        if custom_id:
            ids.add(custom_id)
        stack.extend(getattr(component, "children", []) or [])
    return ids


PAGE_ID = re.compile(rf"{PAGE_PREFIX}:(?P<session>[^:\s]+):(?P<page>\d+)")  # Back/Next between an item's steps


def page_id(session_id: str, page: int) -> str:
    return f"{PAGE_PREFIX}:{session_id}:{page}"


DAILY_ID = re.compile(rf"{re.escape(dx.PREFIX)}:\S+")


def is_daily_id(custom_id: str) -> bool:
    """Say whether a custom_id is a daily-practice button's (`dy:...`)."""
    return DAILY_ID.fullmatch(custom_id) is not None


def where_of(message: discord.Message) -> Where:
    """Where a message was sent: a thread names its parent channel (when known) and itself."""
    channel = message.channel
    reference = message.reference
    replied_to = str(reference.message_id) if reference is not None and reference.message_id is not None else None
    parent = getattr(channel, "parent_id", None)
    if parent is not None:
        return Where(channel=str(parent), thread=str(channel.id), replied_to=replied_to)
    in_guild = message.guild is not None or getattr(channel, "guild_id", None) is not None
    if not in_guild:
        return Where(channel=str(channel.id), replied_to=replied_to, dm=True)
    if isinstance(channel, discord.TextChannel | discord.VoiceChannel | discord.StageChannel):
        return Where(channel=str(channel.id), replied_to=replied_to)
    # An uncached channel (a PartialMessageable) may be a thread whose parent is unknown: its id may
    # name a quiz's thread, or the daily post the thread was started from.
    return Where(channel=None, thread=str(channel.id), replied_to=replied_to)


def anchor_of(interaction: discord.Interaction[Any]) -> Anchor:
    """Where a quiz started by `interaction` lives: its channel, and the thread when it is in one."""
    channel = interaction.channel
    if isinstance(channel, discord.Thread):
        return Anchor(channel=str(channel.parent_id), thread=str(channel.id))
    return Anchor(channel=str(interaction.channel_id or "") or None)


async def note_language(service: QuizService, interaction: discord.Interaction[Any]) -> str:
    """The language of a note shown before the core answers (a working note, a form): the learner's own
    choice when this process remembers it (no database read before the acknowledgement), else their client's."""
    remembered = await service.ask(q.RememberedLanguage(PLATFORM, str(interaction.user.id)))
    return remembered or interaction.locale.value
