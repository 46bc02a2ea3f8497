"""Gateway payloads as Discord documents them: INTERACTION_CREATE and MESSAGE_CREATE."""

from __future__ import annotations

import base64
import itertools
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .fake_discord import APP_ID, BOT_USER

GUILD_ID = "800000000000000001"
CHANNEL_ID = "810000000000000001"
THREAD_ID = "820000000000000001"
COMMAND_ID = "830000000000000001"
MANAGE_GUILD = 1 << 5
VIEW_CHANNEL, SEND_MESSAGES, EMBED_LINKS = 1 << 10, 1 << 11, 1 << 14
# View channel, send messages, use application commands.
MEMBER_PERMISSIONS = VIEW_CHANNEL | SEND_MESSAGES | (1 << 31)

_ids = itertools.count(1_200_000_000_000_000_000)


def snowflake() -> str:
    # Interaction ids carry their creation time: make them now, as Discord would.
    ms = int(datetime.now(UTC).timestamp() * 1000) - 1420070400000
    return str((ms << 22) + next(_ids) % (1 << 22))


@dataclass(frozen=True)
class User:
    id: str
    name: str
    permissions: int = MEMBER_PERMISSIONS

    def json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "username": self.name.lower(),
            "global_name": self.name,
            "discriminator": "0",
            "avatar": None,
        }

    @property
    def dm_channel(self) -> str:
        return "7" + self.id[-17:]


ALICE = User("500000000000000001", "Alice")
BOB = User("500000000000000002", "Bob")
ADMIN = User("500000000000000003", "Ada", permissions=MEMBER_PERMISSIONS | MANAGE_GUILD)


def text_channel(channel_id: str = CHANNEL_ID) -> dict[str, Any]:
    return {
        "id": channel_id,
        "type": 0,
        "guild_id": GUILD_ID,
        "name": "study",
        "position": 0,
        "permission_overwrites": [],
        "nsfw": False,
        "parent_id": None,
        "topic": None,
        "last_message_id": None,
        "rate_limit_per_user": 0,
    }


def role(role_id: str, name: str, permissions: int) -> dict[str, Any]:
    """A role; the @everyone role's id is the guild's."""
    return {
        "id": role_id,
        "name": name,
        "color": 0,
        "hoist": False,
        "position": 0,
        "permissions": str(permissions),
        "managed": False,
        "mentionable": False,
        "flags": 0,
    }


def overwrite(target_id: str, *, allow: int = 0, deny: int = 0, member: bool = False) -> dict[str, Any]:
    """A channel's permission overwrite for a role (or a member)."""
    return {"id": target_id, "type": 1 if member else 0, "allow": str(allow), "deny": str(deny)}


def bot_member(*roles: str) -> dict[str, Any]:
    """The bot's own member in a guild (GUILD_CREATE carries it; GET /guilds/{id}/members/{bot} returns it)."""
    return {"user": BOT_USER, "roles": list(roles), "joined_at": "2026-01-01T00:00:00+00:00", "deaf": False, "mute": False, "flags": 0}


def thread_channel(thread_id: str = THREAD_ID) -> dict[str, Any]:
    return {
        "id": thread_id,
        "type": 11,
        "guild_id": GUILD_ID,
        "name": "my quiz",
        "parent_id": CHANNEL_ID,
        "owner_id": ALICE.id,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "message_count": 0,
        "member_count": 1,
        "flags": 0,
        "thread_metadata": {
            "archived": False,
            "auto_archive_duration": 1440,
            "archive_timestamp": datetime.now(UTC).isoformat(),
            "locked": False,
        },
    }


def dm_channel(user: User) -> dict[str, Any]:
    return {
        "id": user.dm_channel,
        "type": 1,
        "recipients": [user.json()],
        "last_message_id": None,
        "flags": 0,
    }


def interaction_token(iid: str) -> str:
    """A token as Discord makes one: URL-safe base64 (of "interaction:<id>:<secret>"), nothing to quote in a URL."""
    return base64.urlsafe_b64encode(f"interaction:{iid}:tokEnSeCrEt{iid[-6:]}".encode()).decode().rstrip("=")


def interaction(
    kind: int,
    data: dict[str, Any],
    user: User,
    *,
    guild: bool = True,
    channel: dict[str, Any] | None = None,
    message: dict[str, Any] | None = None,
    iid: str | None = None,
    locale: str = "en-US",
    guild_locale: str = "en-US",
) -> dict[str, Any]:
    """An INTERACTION_CREATE payload: in the guild's study channel, or in the user's DM with the bot.

    `locale` is the language of the person's Discord client, `guild_locale` the server's preferred one.
    """
    iid = iid or snowflake()
    payload: dict[str, Any] = {
        "id": iid,
        "application_id": str(APP_ID),
        "type": kind,
        "data": data,
        "token": interaction_token(iid),
        "version": 1,
        "locale": locale,
        "entitlements": [],
        "attachment_size_limit": 26214400,
        "app_permissions": str(MEMBER_PERMISSIONS),
    }
    if guild:
        chan = channel or text_channel()
        payload.update(
            guild_id=GUILD_ID,
            guild_locale=guild_locale,
            channel=chan,
            channel_id=chan["id"],
            context=0,
            authorizing_integration_owners={"0": GUILD_ID},
            member={
                "user": user.json(),
                "roles": [],
                "joined_at": "2026-01-01T00:00:00+00:00",
                "deaf": False,
                "mute": False,
                "flags": 0,
                "pending": False,
                "nick": None,
                "avatar": None,
                "permissions": str(user.permissions),
            },
        )
    else:
        chan = channel or dm_channel(user)
        payload.update(
            channel=chan,
            channel_id=chan["id"],
            context=1,
            authorizing_integration_owners={"0": GUILD_ID},
            user=user.json(),
        )
    if message is not None:
        payload["message"] = message
    return payload


def option(name: str, value: Any) -> dict[str, Any]:
    kind = {bool: 5, int: 4, str: 3}[type(value)]
    return {"name": name, "type": kind, "value": value}


def command(
    sub: str,
    options: list[dict[str, Any]] | None = None,
    *,
    group: str | None = None,
    resolved: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The data of a `/quiz [group] sub` application command."""
    opts: list[dict[str, Any]] = [{"type": 1, "name": sub, "options": options or []}]
    if group is not None:
        opts = [{"type": 2, "name": group, "options": opts}]
    data: dict[str, Any] = {"id": COMMAND_ID, "name": "quiz", "type": 1, "options": opts}
    if resolved:
        data["resolved"] = resolved
    return data


def autocomplete(
    sub: str, focused: str, value: str, others: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    options = [*(others or []), {"name": focused, "type": 3, "value": value, "focused": True}]
    return command(sub, options)


def attachment(attachment_id: str, filename: str, url: str, size: int) -> dict[str, Any]:
    return {
        "id": attachment_id,
        "filename": filename,
        "size": size,
        "url": url,
        "proxy_url": url,
        "content_type": "application/octet-stream",
    }


def component(custom_id: str, component_type: int, values: list[str] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"custom_id": custom_id, "component_type": component_type}
    if component_type == 3:
        data["values"] = values or []
    return data


def modal_submit(custom_id: str, text: str, input_id: str = "answer") -> dict[str, Any]:
    return {
        "custom_id": custom_id,
        "components": [
            {"type": 18, "id": 1, "component": {"type": 4, "id": 2, "custom_id": input_id, "value": text}}
        ],
    }


def message_create(
    user: User,
    content: str,
    *,
    channel_id: str,
    guild: bool,
    attachments: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A MESSAGE_CREATE payload from `user`."""
    payload: dict[str, Any] = {
        "id": snowflake(),
        "channel_id": channel_id,
        "author": user.json(),
        "content": content,
        "timestamp": datetime.now(UTC).isoformat(),
        "edited_timestamp": None,
        "tts": False,
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "attachments": attachments or [],
        "embeds": [],
        "pinned": False,
        "type": 0,
        "flags": 0,
    }
    if guild:
        payload["guild_id"] = GUILD_ID
        payload["member"] = {
            "roles": [],
            "joined_at": "2026-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
        }
    return payload
