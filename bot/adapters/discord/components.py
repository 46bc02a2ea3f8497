"""Lasting components: templates that turn any click on a quiz control back into a core action.

The custom_id of every quiz button and menu is the core's action id, and the state it names lives
in the database, so the templates registered at start answer clicks on messages sent before a
restart. A stopped `View` carries the components; nothing is kept in memory per message.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Protocol

import discord

from bot.core import actions as ax

if TYPE_CHECKING:
    from .handler import QuizHandler

QUIZ_ID = re.compile(rf"{re.escape(ax.PREFIX)}:\S+")
PAGE_PREFIX = "qzp"  # the adapter's own step buttons: qzp:<session>:<page>
RUN_FORM_ID = "qzr:run"  # the /quiz run form


def is_quiz_id(custom_id: str) -> bool:
    """Say whether a custom_id is one of the core's action ids."""
    return QUIZ_ID.fullmatch(custom_id) is not None


class HasHandler(Protocol):
    handler: QuizHandler


def _handler(interaction: discord.Interaction[Any]) -> QuizHandler:
    client: HasHandler = interaction.client
    return client.handler


class QuizControl(discord.ui.DynamicItem[discord.ui.Item[Any]], template=QUIZ_ID):
    """Any quiz button or menu: its custom_id goes to the core unchanged, with the chosen values."""

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> QuizControl:
        return cls(item)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = list(getattr(self.item, "values", []) or [])
        await _handler(interaction).component(interaction, self.custom_id, values)


class PageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PAGE_PREFIX}:(?P<session>[^:\s]+):(?P<page>\d+)",
):
    """Back/Next between the steps of an item whose menus do not fit in one message."""

    def __init__(self, item: discord.ui.Button[Any], *, row: int | None = None) -> None:
        super().__init__(item, row=row)

    @staticmethod
    def make_id(session_id: str, page: int) -> str:
        return f"{PAGE_PREFIX}:{session_id}:{page}"

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PageButton:
        assert isinstance(item, discord.ui.Button)
        return cls(item)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        match = self.template.fullmatch(self.custom_id)
        assert match is not None
        await _handler(interaction).page(interaction, match["session"], int(match["page"]))
