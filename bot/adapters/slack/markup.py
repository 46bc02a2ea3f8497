"""Convert the core's Markdown to Slack mrkdwn and plain text, and cut text to Slack's limits.

Slack mrkdwn differs from CommonMark: `*bold*`, `_italic_`, `~strike~`, `<url|text>` links, and
``` fences without a language. `&`, `<` and `>` must be escaped everywhere, code included, except
in Slack's own tokens (`<@U123>`, `<#C123>`, `<!here>`, `<https://...>`), which pass through.
"""

from __future__ import annotations

import functools
import re

from bot.core.i18n import _, number
from bot.core.replies import spell_commands

_FENCE_LINE = re.compile(r"^[ \t]*```")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1", re.S)
_SLACK_TOKEN = re.compile(r"<(?:[@#!][A-Za-z0-9^|_.:-][^<>\s]*|(?:https?|mailto):[^<>\s]+)>")
_LINK = re.compile(r"\[([^\]\n]+)\]\((\S+?)\)")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
_ITALIC_STAR = re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.M)
_BULLET = re.compile(r"^([ \t]*)[-*+][ \t]+", re.M)
_QUOTE = re.compile(r"^[ \t]*&gt;[ \t]?", re.M)

# Private-use characters stand in for pieces that later steps must not touch.
_HOLD_OPEN, _HOLD_CLOSE, _BOLD_MARK = "\ue000", "\ue001", "\ue002"
_HELD = re.compile(_HOLD_OPEN + r"(\d+)" + _HOLD_CLOSE)


def escape(text: str) -> str:
    """Escape the three characters Slack reserves."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_keeping_mentions(text: str) -> str:
    """Escape like `escape`, but let Slack's own tokens (`<@U123>`, `<#C1>`) through so mentions render."""
    out, last = [], 0
    for match in _SLACK_TOKEN.finditer(text):
        out.append(escape(text[last : match.start()]))
        out.append(match.group(0))
        last = match.end()
    out.append(escape(text[last:]))
    return "".join(out)


def spell(markdown: str) -> str:
    """The core's command names as Slack users type them: `/quiz start`."""
    return spell_commands(markdown, lambda name: f"`/quiz {name}`")


@functools.lru_cache(maxsize=4096)  # a pack's texts come back for every learner: converted once
def to_mrkdwn(markdown: str) -> str:
    """Convert Markdown (bold, italics, strike, links, headings, lists, code) to Slack mrkdwn."""
    markdown = spell(markdown)
    out: list[str] = []
    prose: list[str] = []
    code: list[str] | None = None
    for line in markdown.split("\n"):
        if _FENCE_LINE.match(line):
            if code is None:
                if prose:
                    out.append(_prose("\n".join(prose)))
                    prose = []
                code = []
            else:
                out.append(_code_block("\n".join(code)))
                code = None
        elif code is not None:
            code.append(line)
        else:
            prose.append(line)
    if code is not None:  # an unclosed fence: close it, as a renderer would
        out.append(_code_block("\n".join(code)))
    if prose:
        out.append(_prose("\n".join(prose)))
    return "\n".join(out)


def code_block(code: str) -> str:
    """Return `code` as a mrkdwn code block."""
    return _code_block(code.rstrip("\n"))


def _code_block(code: str) -> str:
    # A backtick fence inside the code would end Slack's block early; a zero-width space breaks it.
    return "```\n" + escape(code.replace("```", "`\u200b``")) + "\n```"


def _prose(text: str) -> str:
    held: list[str] = []

    def hold(value: str) -> str:
        held.append(value)
        return f"{_HOLD_OPEN}{len(held) - 1}{_HOLD_CLOSE}"

    text = text.replace("```", hold("`\u200b`\u200b`"))  # a fence mid-line is literal text
    text = _INLINE_CODE.sub(lambda m: hold("`" + escape(m.group(2).replace("`", "'")) + "`"), text)
    text = _SLACK_TOKEN.sub(lambda m: hold(m.group(0)), text)
    text = _LINK.sub(lambda m: hold(f"<{_link_url(m.group(2))}|{escape(m.group(1)).replace('|', '¦')}>"), text)
    text = escape(text)
    text = _QUOTE.sub("> ", text)
    text = _HEADING.sub(lambda m: f"{_BOLD_MARK}{m.group(1)}{_BOLD_MARK}", text)
    text = _BULLET.sub(lambda m: m.group(1) + "• ", text)
    text = _BOLD.sub(lambda m: f"{_BOLD_MARK}{m.group(1) or m.group(2)}{_BOLD_MARK}", text)
    text = _ITALIC_STAR.sub(r"_\1_", text)
    text = _STRIKE.sub(r"~\1~", text)
    text = text.replace(_BOLD_MARK, "*")
    while _HELD.search(text):
        text = _HELD.sub(lambda m: held[int(m.group(1))], text)
    return text


def _link_url(url: str) -> str:
    return url.replace("<", "%3C").replace(">", "%3E").replace("|", "%7C")


@functools.lru_cache(maxsize=4096)
def to_plain(markdown: str) -> str:
    """Strip Markdown to the plain text Slack shows in buttons, options and titles."""
    text = spell_commands(markdown, lambda name: f"/quiz {name}")
    text = _LINK.sub(r"\1", text)
    text = _INLINE_CODE.sub(lambda m: m.group(2), text)
    text = _BOLD.sub(lambda m: m.group(1) or m.group(2), text)
    text = _ITALIC_STAR.sub(r"\1", text)
    text = _STRIKE.sub(r"\1", text)
    text = re.sub(r"(?<!\w)_(?=\S)(.+?)(?<=\S)_(?!\w)", r"\1", text)
    text = text.replace("```", "")
    return " ".join(text.split())


def clip(text: str, size: int) -> str:
    """Cut one line of plain text to `size` characters, marking the cut with an ellipsis."""
    return text if len(text) <= size else text[: size - 1] + "…"


def cut_note(hidden: int, what: str | None = None) -> str:
    return "_… " + _("cut to fit Slack: {n} more {what} not shown.").format(n=number(hidden), what=what or _("characters")) + "_"


def split_mrkdwn(text: str, size: int) -> list[str]:
    """Split mrkdwn into pieces of at most `size` characters, at line ends where possible.

    A code block split in two is closed at the end of one piece and reopened in the next, so
    every piece renders on its own.
    """
    if len(text) <= size:
        return [text]
    pieces: list[str] = []
    current: list[str] = []
    fenced = False
    room = size - 4  # space kept for a closing fence

    def flush() -> None:
        nonlocal current
        body = "\n".join([*current, "```"] if fenced else current)
        if body.replace("```", "").strip():
            pieces.append(body)
        current = ["```"] if fenced else []

    for line in _hard_wrap(text.split("\n"), room - 4):
        if current and len("\n".join(current)) + 1 + len(line) > room:
            flush()
        current.append(line)
        if line.strip() == "```":
            fenced = not fenced
    fenced = False
    flush()
    return pieces


def _hard_wrap(lines: list[str], size: int) -> list[str]:
    out: list[str] = []
    for line in lines:
        while len(line) > size:
            cut = size
            amp = line.rfind("&", max(cut - 5, 0), cut)  # never split an entity such as &amp;
            if amp != -1 and ";" in line[amp:cut + 5]:
                cut = amp
            out.append(line[:cut])
            line = line[cut:]
        out.append(line)
    return out


_ANGLE = re.compile(r"<([^<>|]+)(?:\|([^<>]*))?>")


def unescape(text: str) -> str:
    """Turn Slack's message text back into what the person typed (for code they send).

    Slack escapes `&`, `<` and `>` and wraps links as `<url|label>`; code must get the original.
    """

    def angle(match: re.Match[str]) -> str:
        target, label = match.group(1), match.group(2)
        if target.startswith(("@", "#", "!")):
            return match.group(0)
        return label if label is not None else target

    text = _ANGLE.sub(angle, text)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
