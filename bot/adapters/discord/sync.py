"""Register the command tree with Discord: at once in development guilds, globally only when it changed."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from typing import Any

import discord
from discord import app_commands

from .handler import SettingsStore

log = logging.getLogger(__name__)

HASH_KEY = "discord:commands:{application_id}"


def tree_hash(tree: app_commands.CommandTree[Any]) -> str:
    """Hash the commands as Discord receives them, so any change in name, option or text shows."""
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
    digest = tree_hash(tree)
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
