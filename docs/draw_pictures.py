"""Draw one quiz item as Discord and as Slack show it, from what the bot's own renderers send.

    python docs/draw_pictures.py [OUT_DIR]      # default: docs/images

The item is a shipped pack's question started through the real core (QuizService over a temporary
SQLite database). The Discord picture is drawn from the embed and components that
`bot.adapters.discord.render.render` makes (as sent to Discord's API: `Embed.to_dict()`,
`View.to_components()`); the Slack picture from the Block Kit blocks of
`bot.adapters.slack.render.message_blocks`. Only the platforms' own chrome (the bot's name, colours,
fonts, the ephemeral note) is imitated here; every word, button and colour of the message comes from
the renderers. Pillow draws the PNGs with the DejaVu fonts that matplotlib ships.
"""

from __future__ import annotations

import asyncio
import html
import random
import re
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import matplotlib
from PIL import Image, ImageDraw, ImageFont

from bot.adapters.discord.render import render as discord_render
from bot.adapters.slack.render import message_blocks
from bot.core import Actor, QuizService
from bot.core import requests as rq
from bot.core.packs import load_path
from bot.core.replies import Message
from bot.storage import open_repository

ROOT = Path(__file__).resolve().parents[1]
PACK, QUESTION = "pytorch-autograd", "cf-branch"
SCALE = 2
WIDTH = 700
FONTS = Path(matplotlib.get_data_path()) / "fonts" / "ttf"


def font(name: str, size: float) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONTS / name), round(size * SCALE))


@dataclass(frozen=True)
class Look:
    """One platform's text colours and fonts."""

    text: str
    code_text: str
    code_bg: str
    code_border: str
    inline_code_text: str
    size: float = 15
    code_size: float = 13


class Clock:
    def now(self) -> datetime:
        return datetime(2026, 12, 3, 9, 0, tzinfo=UTC)


async def quiz_item(platform: str) -> Message:
    """Start a one-item quiz on the shipped question through the real core; return the item."""
    with tempfile.TemporaryDirectory() as folder:
        repository = await open_repository(f"sqlite+aiosqlite:///{folder}/pictures.db")
        try:
            service = QuizService(repository=repository, runner=None, clock=Clock(), rng=random.Random(3))
            await service.import_pack(load_path(ROOT / "content" / "packs" / PACK).pack)
            actor = Actor(platform, "g1", "ann", "Ann")
            reply = await service.handle(actor, rq.Start(pack=PACK, question=QUESTION, replace=True))
        finally:
            await repository.close()
    return next(m for m in reply.messages if m.kind == "item")


# ----------------------------------------------------------------------------- text layout


def runs(text: str, *, slack: bool) -> list[tuple[str, str]]:
    """Split one line of Markdown (Discord) or mrkdwn (Slack) into (text, kind) runs."""
    pattern = r"(`[^`]+`|\*[^*]+\*|_[^_]+_)" if slack else r"(`[^`]+`|\*\*[^*]+\*\*|\*[^*]+\*)"
    out: list[tuple[str, str]] = []
    for piece in re.split(pattern, text):
        if not piece:
            continue
        if piece.startswith("`"):
            out.append((piece[1:-1], "code"))
        elif piece.startswith("**"):
            out.append((piece[2:-2], "bold"))
        elif piece.startswith("*"):
            out.append((piece[1:-1], "bold" if slack else "italic"))
        elif slack and piece.startswith("_"):
            out.append((piece[1:-1], "italic"))
        else:
            out.append((piece, "plain"))
    return out


class Canvas:
    def __init__(self, background: str) -> None:
        self.image = Image.new("RGB", (WIDTH * SCALE, 3000 * SCALE), background)
        self.draw = ImageDraw.Draw(self.image)

    def save(self, path: Path, height: float) -> None:
        self.image.crop((0, 0, WIDTH * SCALE, round(height * SCALE))).save(path, optimize=True)

    def box(self, x: float, y: float, w: float, h: float, fill: str, outline: str | None = None, radius: float = 4) -> None:
        self.draw.rounded_rectangle(
            (x * SCALE, y * SCALE, (x + w) * SCALE, (y + h) * SCALE), radius * SCALE, fill=fill,
            outline=outline, width=SCALE if outline else 0,
        )

    def text(self, x: float, y: float, text: str, face: ImageFont.FreeTypeFont, fill: str) -> float:
        self.draw.text((x * SCALE, y * SCALE), text, font=face, fill=fill)
        return face.getlength(text) / SCALE

    def line(self, x: float, y: float, width: float, text: str, look: Look, *, slack: bool) -> float:
        """Write one paragraph line with wrapping; return the y below it."""
        faces = {
            "plain": font("DejaVuSans.ttf", look.size),
            "bold": font("DejaVuSans-Bold.ttf", look.size),
            "italic": font("DejaVuSans-Oblique.ttf", look.size),
            "code": font("DejaVuSansMono.ttf", look.size - 1.5),
        }
        height = look.size * 1.45
        cx = x
        for chunk, kind in runs(text, slack=slack):
            words = [chunk] if kind == "code" else re.findall(r"\S+\s*|\s+", chunk)
            for word in words:
                w = faces[kind].getlength(word) / SCALE + (6 if kind == "code" else 0)
                if cx + w > x + width and cx > x:
                    cx, y = x, y + height
                    word = word.lstrip()
                if kind == "code":
                    self.box(cx, y + 1, w, height - 3, look.code_bg, look.code_border, 3)
                    self.text(cx + 3, y + 3, word, faces[kind], look.inline_code_text)
                else:
                    self.text(cx, y, word, faces[kind], look.text)
                cx += w
        return y + height

    def markdown(self, x: float, y: float, width: float, text: str, look: Look, *, slack: bool) -> float:
        """Write Markdown or mrkdwn with fenced code blocks; return the y below it."""
        mono = font("DejaVuSansMono.ttf", look.code_size)
        for index, block in enumerate(re.split(r"```(?:[a-z0-9]*)\n?(.*?)\n?```", text, flags=re.S)):
            if index % 2:  # a fenced code block
                lines = block.split("\n")
                h = len(lines) * look.code_size * 1.45 + 16
                self.box(x, y + 4, width, h, look.code_bg, look.code_border, 4)
                for n, code in enumerate(lines):
                    self.text(x + 9, y + 12 + n * look.code_size * 1.45, code, mono, look.code_text)
                y += h + 8
                continue
            for paragraph in block.strip("\n").split("\n"):
                y = self.line(x, y, width, paragraph, look, slack=slack) if paragraph.strip() else y + look.size * 0.6
        return y


# ----------------------------------------------------------------------------- Discord

DISCORD_BUTTONS = {1: "#5865F2", 2: "#4E5058", 3: "#248046", 4: "#DA373C"}


def draw_discord(message: Message, path: Path) -> None:
    rendered = discord_render(message)
    embed: dict[str, Any] = dict(rendered.embeds[0].to_dict())
    components: list[dict[str, Any]] = rendered.view.to_components() if rendered.view else []
    c = Canvas("#313338")
    # The bot's message header, as Discord's client shows it.
    c.draw.ellipse((16 * SCALE, 16 * SCALE, 56 * SCALE, 56 * SCALE), fill="#5865F2")
    c.text(29, 25, "Q", font("DejaVuSans-Bold.ttf", 17), "#FFFFFF")
    x = 72
    w = c.text(x, 16, "QuizBot", font("DejaVuSans-Bold.ttf", 15), "#F2F3F5")
    c.box(x + w + 6, 18, 30, 16, "#5865F2", radius=3)
    c.text(x + w + 10, 19, "APP", font("DejaVuSans-Bold.ttf", 10), "#FFFFFF")
    c.text(x + w + 44, 19, "Today at 09:00", font("DejaVuSans.ttf", 11), "#949BA4")
    # The embed: colour bar, title, description, footer.
    top, inner, pad = 44, 610, 14
    look = Look(text="#DBDEE1", code_text="#DBDEE1", code_bg="#1E1F22", code_border="#1E1F22", inline_code_text="#DBDEE1")
    probe = Canvas("#2B2D31")
    bottom = probe.markdown(x + pad, top + pad + 28, inner - 2 * pad, embed.get("description", ""), look, slack=False)
    bottom += 8 + 18 + pad
    c.box(x, top, inner, bottom - top, "#2B2D31", radius=4)
    c.box(x, top, 4, bottom - top, f"#{embed.get('color', 0x5865F2):06X}", radius=2)
    c.text(x + pad, top + pad, embed.get("title", ""), font("DejaVuSans-Bold.ttf", 16), "#F2F3F5")
    y = c.markdown(x + pad, top + pad + 28, inner - 2 * pad, embed.get("description", ""), look, slack=False)
    c.text(x + pad, y + 8, embed.get("footer", {}).get("text", ""), font("DejaVuSans.ttf", 11.5), "#B5BAC1")
    # The components: one line per action row.
    y = bottom + 8
    label_font = font("DejaVuSans.ttf", 13.5)
    for row in components:
        bx: float = x
        for button in row.get("components", []):
            label = button.get("label", "")
            bw = label_font.getlength(label) / SCALE + 32
            c.box(bx, y, bw, 32, DISCORD_BUTTONS.get(button.get("style", 2), "#4E5058"), radius=4)
            c.text(bx + 16, y + 7, label, label_font, "#FFFFFF")
            bx += bw + 8
        y += 40
    # A personal quiz in a server is ephemeral: Discord's client adds this line under it.
    w = c.text(x, y + 2, "Only you can see this • ", font("DejaVuSans.ttf", 11.5), "#949BA4")
    c.text(x + w, y + 2, "Dismiss message", font("DejaVuSans.ttf", 11.5), "#00A8FC")
    c.save(path, y + 26)


# ----------------------------------------------------------------------------- Slack


def draw_slack(message: Message, path: Path) -> None:
    blocks = message_blocks(message)
    c = Canvas("#FFFFFF")
    c.box(20, 16, 36, 36, "#4A154B", radius=6)
    c.text(31, 24, "Q", font("DejaVuSans-Bold.ttf", 16), "#FFFFFF")
    x, width = 68, 600
    w = c.text(x, 14, "QuizBot", font("DejaVuSans-Bold.ttf", 15), "#1D1C1D")
    c.box(x + w + 6, 16, 30, 16, "#E8E8E8", radius=3)
    c.text(x + w + 10, 17, "APP", font("DejaVuSans-Bold.ttf", 10), "#616061")
    c.text(x + w + 44, 17, "9:00 AM", font("DejaVuSans.ttf", 11.5), "#616061")
    look = Look(text="#1D1C1D", code_text="#1D1C1D", code_bg="#F8F8F8", code_border="#DDDDDD", inline_code_text="#E01E5A")
    y = 40.0
    label_font = font("DejaVuSans-Bold.ttf", 13.5)
    for block in blocks:
        kind = block["type"]
        if kind == "header":
            y += 6
            c.text(x, y, block["text"]["text"], font("DejaVuSans-Bold.ttf", 18), "#1D1C1D")
            y += 26
        elif kind == "section":
            y = c.markdown(x, y + 4, width, html.unescape(block["text"]["text"]), look, slack=True) + 6
        elif kind == "actions":
            bx: float = x
            for element in block["elements"]:
                label = element["text"]["text"]
                bw = label_font.getlength(label) / SCALE + 28
                style = element.get("style")
                fill, outline, ink = {
                    "primary": ("#007A5A", None, "#FFFFFF"),
                    "danger": ("#E01E5A", None, "#FFFFFF"),
                }.get(style or "", ("#FFFFFF", "#BBBBBB", "#1D1C1D"))
                c.box(bx, y + 4, bw, 30, fill, outline, radius=4)
                c.text(bx + 14, y + 10, label, label_font, ink)
                bx += bw + 8
            y += 42
        elif kind == "context":
            for element in block["elements"]:
                c.text(x, y + 4, html.unescape(element.get("text", "")), font("DejaVuSans.ttf", 11.5), "#616061")
            y += 26
    c.save(path, y + 12)


def draw(out: Path) -> None:
    """Write discord-quiz.png and slack-quiz.png into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    draw_discord(asyncio.run(quiz_item("discord")), out / "discord-quiz.png")
    draw_slack(asyncio.run(quiz_item("slack")), out / "slack-quiz.png")


if __name__ == "__main__":
    draw(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "images")
