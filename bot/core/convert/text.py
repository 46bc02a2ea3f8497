"""Text helpers shared by the formats: decoding, HTML to Markdown, slugs and ids."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from html.parser import HTMLParser

from bot.core.i18n import M_
from bot.core.packs.models import ITEM_ID, PACK_ID

from .result import ConvertError

_ITEM_ID = re.compile(ITEM_ID)
_PACK_ID = re.compile(PACK_ID)
_HTML_TAG = re.compile(
    r"</?(p|br|b|i|u|s|strong|em|code|pre|ul|ol|li|span|div|sub|sup|img|a|tt|kbd|h[1-6]|table|tr|td|th|"
    r"blockquote|font|hr)\b[^>]*>",
    re.I,
)
_BLANK_RUNS = re.compile(r"\n{3,}")
_LIST_LINE = re.compile(r"^\s*(?:- |\d+\. )")


def utf16(data: bytes) -> str | None:
    """The codec of UTF-16 text (with a byte order mark, or without: a NUL in every other byte), else None."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    if len(data) > 1 and (data[0] == 0) != (data[1] == 0):  # ASCII first, as every quiz file starts
        return "utf-16-le" if data[1] == 0 else "utf-16-be"
    return None


def decode(data: bytes, source: str) -> str:
    """Decode UTF-8 (with or without a byte order mark) or UTF-16 (with or without one)."""
    codec = utf16(data)
    if codec is not None:
        try:
            return data.decode(codec).removeprefix("\ufeff")
        except UnicodeDecodeError as exc:
            raise ConvertError(source, None, M_("not valid UTF-16 text")) from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConvertError(source, line, M_("not UTF-8 text (byte {byte}); save the file as UTF-8", byte=exc.start)) from exc


def looks_like_html(text: str) -> bool:
    return _HTML_TAG.search(text) is not None


class _Markdown(HTMLParser):
    """Turn the HTML that quiz tools write into the Markdown chat platforms show."""

    BLOCKS = frozenset({"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "table", "tr", "hr"})

    def __init__(self, image_marks: bool = True) -> None:
        super().__init__(convert_charrefs=True)
        self.image_marks = image_marks
        self.hidden = 0  # inside <style> or <script>: nothing shown
        self.out: list[str] = []
        self.pre = 0
        self.lists: list[list[int]] = []  # [ordered, counter]
        self.links: list[str | None] = []
        self.images: list[str] = []

    def _block(self) -> None:
        if self.out:
            self.out[-1] = self.out[-1].rstrip(" ")
        self.out.append("\n\n")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag in ("style", "script"):
            self.hidden += 1
        elif tag in self.BLOCKS:
            self._block()
        elif tag == "br":
            self.out.append("\n")
        elif tag == "pre":
            self._block()
            self.out.append("```\n")
            self.pre += 1
        elif self.pre:
            return
        elif tag in ("strong", "b"):
            self.out.append("**")
        elif tag in ("em", "i"):
            self.out.append("*")
        elif tag in ("code", "tt", "kbd", "samp"):
            self.out.append("`")
        elif tag in ("ul", "ol"):
            self.lists.append([tag == "ol", 0])
            self._block()
        elif tag == "li":
            depth = max(len(self.lists) - 1, 0)
            marker = "- "
            if self.lists and self.lists[-1][0]:
                self.lists[-1][1] += 1
                marker = f"{self.lists[-1][1]}. "
            self.out.append("\n" + "  " * depth + marker)
        elif tag == "a":
            self.links.append(found.get("href"))
        elif tag == "img":
            name = found.get("alt") or (found.get("src") or "image").rsplit("/", 1)[-1]
            self.images.append(name)
            if self.image_marks:
                self.out.append(f"[image: {name}]")
        elif tag == "sup":
            self.out.append("^")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script"):
            self.hidden = max(self.hidden - 1, 0)
        elif tag == "pre":
            self.pre = max(self.pre - 1, 0)
            if not "".join(self.out[-1:]).endswith("\n"):
                self.out.append("\n")
            self.out.append("```")
            self._block()
        elif self.pre:
            return
        elif tag in self.BLOCKS:
            self._block()
        elif tag in ("strong", "b"):
            self.out.append("**")
        elif tag in ("em", "i"):
            self.out.append("*")
        elif tag in ("code", "tt", "kbd", "samp"):
            self.out.append("`")
        elif tag in ("ul", "ol"):
            if self.lists:
                self.lists.pop()
            self._block()
        elif tag == "a" and self.links:
            href = self.links.pop()
            if href and href.startswith(("http://", "https://")):
                self.out.append(f" ({href})")

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        if self.pre:
            self.out.append(data)
        else:
            self.out.append(re.sub(r"\s+", " ", data.replace("\xa0", " ")))

    def markdown(self) -> str:
        text = "".join(self.out)
        lines: list[str] = []
        fenced = False
        for line in text.split("\n"):
            if line.strip().startswith("```"):
                fenced = not fenced
                lines.append(line.strip())
            elif fenced:
                lines.append(line.rstrip())
            else:
                lines.append(line.rstrip() if _LIST_LINE.match(line) else line.strip())
        return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip()


def html_to_markdown(html: str, *, image_marks: bool = True) -> tuple[str, list[str]]:
    """Convert HTML to Markdown; also return the images it referred to (they are not carried).

    With `image_marks` an image shows as `[image: alt]`; without, it leaves no trace in the text.
    """
    parser = _Markdown(image_marks)
    parser.feed(html)
    parser.close()
    return parser.markdown(), parser.images


def slug(text: str, limit: int = 48) -> str:
    """Lower-case ASCII words joined by '-', at most `limit` characters."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")[:limit].rstrip("-")


def short_hash(text: str, size: int = 6) -> str:
    return hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()[:size]


def item_id(name: str | None, prompt: str) -> str:
    """Derive an item id that stays the same when the source is converted again.

    A name that is already a valid lower-case id is kept as it is (so exports convert back to the same ids);
    another name is slugged; without a name, the first words of the prompt and a short hash of it
    keep the id stable when other items are added, removed or moved.
    """
    if name and _ITEM_ID.fullmatch(name.strip()) and name.strip() == name.strip().lower():
        return name.strip()
    if name and slug(name):
        return slug(name, 60)
    words = slug(" ".join(prompt.split()[:8]), 200)
    if len(words) > 40:
        words = words[:41].rsplit("-", 1)[0] if "-" in words[:41] else words[:40]
    return f"{words}-{short_hash(prompt)}" if words else f"q-{short_hash(prompt)}"


def unique(wanted: str, taken: set[str], limit: int = 64) -> str:
    """Return `wanted`, or `wanted-2`, `wanted-3` ... whichever is not yet taken; record it."""
    candidate = wanted[:limit]
    n = 2
    while candidate in taken:
        suffix = f"-{n}"
        candidate = wanted[: limit - len(suffix)] + suffix
        n += 1
    taken.add(candidate)
    return candidate


def valid_pack_id(value: str) -> bool:
    return _PACK_ID.fullmatch(value) is not None


def pack_id_from(filename: str) -> str:
    """Derive a pack id from a file name, dropping Moodle's export time stamp."""
    stem = filename.replace("\\", "/").rsplit("/", 1)[-1]
    stem = stem.rsplit(".", 1)[0] if "." in stem else stem
    stem = re.sub(r"-\d{8}-\d{4}$", "", stem)
    candidate = slug(stem, 40)
    if len(candidate) < 2:
        candidate = "imported" + (f"-{candidate}" if candidate else "")
    return candidate


def title_from(filename: str) -> str:
    stem = filename.replace("\\", "/").rsplit("/", 1)[-1]
    stem = stem.rsplit(".", 1)[0] if "." in stem else stem
    stem = re.sub(r"-\d{8}-\d{4}$", "", stem)
    words = re.sub(r"[_\-]+", " ", stem).strip() or "Imported questions"
    return (words[:1].upper() + words[1:])[:120]


def first_words(text: str, limit: int = 60) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1].rstrip() + "…"
