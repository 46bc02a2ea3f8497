"""Who acted and where, and the lasting components that turn any click back into a core action.

The custom_id of every quiz button and menu is the core's action id, and the state it names lives
in the database, so a click is routed by its custom_id alone (`Inbound.click`), also on a message
sent before a restart. A stopped `View` carries the components; nothing is kept in memory per message.
"""

from __future__ import annotations

import re
from collections.abc import Callable
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


CLICKED = "quizbot_clicked"  # where a click's or form's message waits in the interaction's data, as Discord sent it


def keep_clicked_raw(parsers: dict[str, Callable[[Any], None]]) -> None:
    """Keep the message a click or form came from as Discord sent it, not as discord.py's `Message`.

    For every component and form interaction discord.py builds a whole `Message` of the clicked message
    (its author, embeds, components, mentions); the bot reads only whether there is one and, to page,
    its components' ids. The payload moves into the interaction's `data` (under CLICKED) before
    discord.py parses the interaction, so `interaction.message` is None and `clicked` returns it.
    """
    parse = parsers["INTERACTION_CREATE"]
    from_messages = (discord.InteractionType.component.value, discord.InteractionType.modal_submit.value)

    def parse_keeping_raw(data: Any) -> None:
        inner = data.get("data")
        if data.get("type") in from_messages and isinstance(inner, dict) and isinstance(message := data.get("message"), dict):
            data = {**data, "data": {**inner, CLICKED: message}}  # copies: the payload given stays as it was
            del data["message"]
        parse(data)

    parsers["INTERACTION_CREATE"] = parse_keeping_raw


def clicked(interaction: discord.Interaction[Any]) -> dict[str, Any] | None:
    """The payload of the message a click or form came from (`keep_clicked_raw`), or None."""
    data: Any = interaction.data
    found = data.get(CLICKED) if isinstance(data, dict) else None
    return found if isinstance(found, dict) else None


def message_ids(message: dict[str, Any] | None) -> set[str]:
    """Return the custom_ids of a message payload's components, at any depth."""
    ids: set[str] = set()
    stack: list[Any] = [message]
    while stack:
        component = stack.pop()
        if not isinstance(component, dict):
            continue  # not what Discord sends: nothing to read in it
        if isinstance(custom_id := component.get("custom_id"), str) and custom_id:
            ids.add(custom_id)
        if isinstance(children := component.get("components"), list):
            stack.extend(children)
        stack.extend(component[key] for key in ("component", "accessory") if key in component)  # a label's, a section's
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
