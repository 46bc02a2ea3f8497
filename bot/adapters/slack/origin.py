"""Who acted and where, read from the payloads Slack sends (commands, actions, views, events)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.core.model import Actor


@dataclass(frozen=True)
class Origin:
    """One person's action: the workspace, the user, and the ways to answer them."""

    team: str
    user: str
    channel: str | None = None
    thread_ts: str | None = None
    message_ts: str | None = None  # the message a click came from
    response_url: str | None = None
    trigger_id: str | None = None
    via_command: bool = False

    def actor(self, *, is_admin: bool = False) -> Actor:
        return Actor(
            platform="slack",
            scope=self.team,
            user_id=self.user,
            name=f"<@{self.user}>",
            is_admin=is_admin,
            channel_id=self.channel,
        )

    @property
    def in_dm(self) -> bool:
        return bool(self.channel and self.channel.startswith("D"))


def _team(body: dict[str, Any]) -> str:
    team = body.get("team")
    user = body.get("user")
    return str(
        body.get("team_id")
        or (team.get("id") if isinstance(team, dict) else None)
        or (user.get("team_id") if isinstance(user, dict) else None)
        or body.get("enterprise_id")
        or "slack"
    )


def from_command(body: dict[str, Any]) -> Origin:
    return Origin(
        team=_team(body),
        user=str(body.get("user_id", "")),
        channel=body.get("channel_id") or None,
        response_url=body.get("response_url") or None,
        trigger_id=body.get("trigger_id") or None,
        via_command=True,
    )


def from_action(body: dict[str, Any]) -> Origin:
    container = body.get("container") or {}
    message = body.get("message") or {}
    channel = (body.get("channel") or {}).get("id") or container.get("channel_id")
    return Origin(
        team=_team(body),
        user=str((body.get("user") or {}).get("id", "")),
        channel=channel or None,
        thread_ts=message.get("thread_ts") or container.get("thread_ts") or None,
        message_ts=container.get("message_ts") or message.get("ts") or None,
        response_url=body.get("response_url") or None,
        trigger_id=body.get("trigger_id") or None,
    )


def from_view(body: dict[str, Any], meta: dict[str, str]) -> Origin:
    return Origin(
        team=_team(body),
        user=str((body.get("user") or {}).get("id", "")),
        channel=meta.get("c"),
        thread_ts=meta.get("t"),
        message_ts=meta.get("m"),
        response_url=meta.get("r"),
        trigger_id=body.get("trigger_id") or None,
        via_command=bool(meta.get("r")),
    )


def from_event(body: dict[str, Any]) -> Origin:
    event = body.get("event") or {}
    user = event.get("user")
    team = str(body.get("team_id") or event.get("team") or "slack")
    return Origin(
        team=team,
        user=str(user.get("id", "") if isinstance(user, dict) else user or ""),
        channel=event.get("channel") if isinstance(event.get("channel"), str) else None,
        thread_ts=event.get("thread_ts") or None,
        message_ts=event.get("ts") or None,
    )
