"""Render neutral messages with rich."""

from __future__ import annotations

import re
import time
from pathlib import Path

from rich.console import Console, Group, RenderableType
from rich.markdown import Markdown
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text as RichText

from bot.core.i18n import _
from bot.core.replies import Button, Code, Fields, Image, Message, Select, Text, Tone, spell_commands

COLOURS = {Tone.INFO: "blue", Tone.SUCCESS: "green", Tone.FAILURE: "red", Tone.WARNING: "yellow", Tone.ERROR: "red"}


def render_message(console: Console, message: Message, *, pictures: Path | None = None) -> None:
    """Print one message; a picture is saved under `pictures` (when given) and its path printed."""
    body: list[RenderableType] = []
    for part in message.parts:
        if isinstance(part, Text):
            body.append(Markdown(hard_breaks(spell(part.markdown))))
        elif isinstance(part, Code):
            body.append(Syntax(part.code, part.language if part.language != "text" else "text", theme="ansi_dark"))
        elif isinstance(part, Fields):
            table = Table(show_header=False, box=None)
            for name, value in part.items:
                table.add_row(RichText(name), RichText(value))  # titles as written ("[a-z]"), not rich markup
            body.append(table)
        elif isinstance(part, Image):
            saved = save_picture(part, pictures) if pictures is not None else None
            where = _("saved to {path}").format(path=saved) if saved is not None else _("not saved")
            body.append(Markdown("_" + _("(picture: {what}; {where})").format(what=part.alt or part.filename, where=where) + "_"))
    controls = _controls(message)
    if controls:
        body.append(Markdown(controls))
    # Titles and footers hold pack and topic titles as written: plain Text, not rich markup ("[a-z]", "[/]").
    title = RichText(message.title) if message.title else None
    footer = RichText(message.footer) if message.footer else None
    console.print(Panel(Group(*body), title=title, subtitle=footer, border_style=COLOURS[message.tone], expand=False))


def save_picture(image: Image, folder: Path) -> Path | None:
    """Write a picture to `folder` under a fresh name; return its path (None when it cannot be written)."""
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", Path(image.filename).name)[:80] or "picture.png"
    path = folder / f"{time.strftime('%Y%m%d-%H%M%S')}-{time.monotonic_ns() % 1_000_000:06d}-{stem}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_bytes(image.data)
    except OSError:
        return None
    return path


# Commands done elsewhere than at the prompt here: a pack is loaded from the shell (`pack load` answers so).
SHELL_COMMANDS = {"pack load": "`quizbot pack import PATH`"}


def spell(markdown: str) -> str:
    """Commands as typed here: `start`, not `/quiz start`; `pack load` as the shell command that does it."""
    return spell_commands(markdown, lambda name: SHELL_COMMANDS.get(name, f"`{name}`"))


def hard_breaks(markdown: str) -> str:
    """Keep chat-style single line breaks, which CommonMark would fold into one paragraph."""
    out: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append(line)
        else:
            out.append(line if fenced or not line.strip() else line + "  ")
    return "\n".join(out)


def _controls(message: Message) -> str:
    if message.kind != "item":
        return ""
    hints = []
    controls = [c for c in message.controls() if not c.disabled]
    roles = {c.role for c in controls}
    letters = [c.label for c in controls if isinstance(c, Button) and c.role == "choice"]
    if letters:
        hints.append(_("Type a letter:") + " " + " ".join(letters))
    if "multi" in roles:
        hints.append(_("Type every right letter, e.g. `A C`"))
    elif "blank" in roles:
        hints.append(_("Press Enter (or type anything) to fill the blanks from numbered menus"))
    elif any(isinstance(c, Select) and c.role == "choice" for c in controls):
        hints.append(_("Type the letter of your choice"))
    if "answer" in roles:
        hints.append(_("Type your answer (for code: type \\`\\`\\` then paste, and end with \\`\\`\\`)"))
    extras = [role for role in ("hint", "skip", "stop") if role in roles]
    if hints:
        return "_" + " · ".join(hints) + (" · " + _("or {commands}").format(commands=", ".join(extras)) if extras else "") + "_"
    return ""
