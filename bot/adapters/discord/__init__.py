"""The Discord front end (discord.py 2.x): `/quiz` commands, lasting buttons and menus, forms, code by DM."""

from .client import QuizBotClient, create_client, run_discord

__all__ = ["QuizBotClient", "create_client", "run_discord"]
