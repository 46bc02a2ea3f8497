"""A message's components are written as Discord's JSON directly: discord.py reads them back as written."""

from __future__ import annotations

from typing import Any

import discord
from discord.components import ActionRow

from bot.adapters.discord.render import render
from bot.core.replies import Button, Control, Message, Option, Select, Text


def _message(*, final: bool) -> Message:
    rows: tuple[tuple[Control, ...], ...] = (
        (
            Button("qz:s:0:c:0", "A", "success" if final else "secondary", final, "right", role="choice"),
            Button("qz:s:0:c:1", "B", "danger" if final else "secondary", final, "wrong", role="choice"),
        ),
        (
            Select(
                "qz:s:0:m",
                "Select all that apply",
                (Option("0", "A. right", True), Option("1", "B. wrong")),
                1,
                2,
                final,
                role="multi",
            ),
        ),
        (Button("qz:s:0:h", "Hint", role="hint"), Button("qz:s:0:x", "Stop", "danger", role="stop")),
    )
    return Message(kind="item", title="Question 1 of 1", parts=(Text("Which?"),), rows=rows, session_id="s")


def _as_discord_ui_writes_them(final: bool) -> list[dict[str, Any]]:
    """The same controls built as discord.ui items, as the adapter rendered them before."""
    style = discord.ButtonStyle
    view = discord.ui.View(timeout=None)
    for n, (label, chosen) in enumerate((("A. right", style.success), ("B. wrong", style.danger))):
        shown = chosen if final else style.secondary
        view.add_item(
            discord.ui.Button(label=label, style=shown, disabled=final, custom_id=f"qz:s:0:c:{n}", row=0)
        )
    options = [
        discord.SelectOption(label="A. right", value="0", default=True),
        discord.SelectOption(label="B. wrong", value="1"),
    ]
    view.add_item(
        discord.ui.Select(
            custom_id="qz:s:0:m",
            placeholder="Select all that apply",
            min_values=1,
            max_values=2,
            options=options,
            disabled=final,
            row=1,
        )
    )
    view.add_item(discord.ui.Button(label="Hint", style=style.secondary, custom_id="qz:s:0:h", row=2))
    view.add_item(discord.ui.Button(label="Stop", style=style.danger, custom_id="qz:s:0:x", row=2))
    return view.to_components()


def test_components_are_what_discord_ui_wrote_and_discord_py_reads_them_back() -> None:
    for final in (False, True):
        rendered = render(_message(final=final))
        assert rendered.view is not None
        written = rendered.view.to_components()
        assert written == _as_discord_ui_writes_them(final)
        assert [
            ActionRow(row).to_dict() for row in written
        ] == written  # discord.py's own parser keeps every field
        assert (
            rendered.view.is_finished() and not rendered.view.is_dispatchable()
        )  # never stored for dispatch
