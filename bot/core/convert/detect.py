"""Tell the format of a quiz file from its content (the file name only breaks ties)."""

from __future__ import annotations

import csv
import re

from bot.core.i18n import M_

from .ankipkg import is_package
from .columns import looks_like_header
from .result import ConvertError, UnknownFormat
from .text import utf16

FORMATS: tuple[str, ...] = ("moodle-xml", "gift", "red-trivia", "opentdb", "csv", "anki", "anki-package")
ALIASES = {
    "moodle": "moodle-xml",
    "xml": "moodle-xml",
    "red": "red-trivia",
    "trivia": "red-trivia",
    "yaml": "red-trivia",
    "open-trivia-db": "opentdb",
    "json": "opentdb",
    "tsv": "csv",
    "anki-text": "anki",
    "apkg": "anki-package",
    "colpkg": "anki-package",
}
SNIFF_BYTES = 64 * 1024

# No pattern here may let `\s` run across lines from every line start: on a file of blank lines that
# is quadratic (a 64 KB file of newlines took over 30 s). Blanks within a line are `[ \t]`.
_GIFT_BLOCK = re.compile(r"\{[ \t\n]*(?:[=~#]|T[ \t]*[}#]|F[ \t]*[}#]|TRUE\b|FALSE\b)")
_GIFT_MARKS = re.compile(r"^[ \t]*(?:::[^:\n]+::|\$CATEGORY:)", re.M)
_RED_KEY = re.compile(r"^[^\s#\-][^\n]*:[ \t]*(?:\n(?:[ \t]*#[^\n]*\n)*[ \t]*-[ \t]+\S|\[)", re.M)
_PACK_KEY = re.compile(r"""^["']?(?:pack|questions)["']?[ \t]*:""", re.M)
_FLOW_PACK_KEY = re.compile(r"""[{,\s]["']?(?:pack|questions)["']?[ \t]*:""")  # JSON is YAML too
_ANKI_HEADER = re.compile(r"^#(?:separator|html|tags column|notetype column|deck column|guid column|columns):", re.M)
_TABLE_HEADER = re.compile(r"^\ufeff?\s*([^\r\n]*)")  # a row may end in `\r` alone (Excel for Mac)


def is_native_pack(filename: str, data: bytes) -> bool:
    """Tell whether an upload is already a QuizBot pack (a .zip, or YAML with `pack:` or `questions:`,
    the keys quoted or not, in block or flow (JSON) style, in UTF-8 or UTF-16).

    Front ends use it to choose between loading a file as it is and converting it first; a Red
    trivia list is YAML too, but has neither key at the top level.
    """
    lower = filename.lower()
    if lower.endswith(".zip"):
        return True
    if not lower.endswith((".yaml", ".yml")):
        return False
    head = data[:SNIFF_BYTES]
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        text = head.decode("utf-16", errors="replace")
    elif len(head) > 1 and (head[0] == 0) != (head[1] == 0):  # UTF-16 without a byte order mark
        text = head.decode("utf-16-le" if head[1] == 0 else "utf-16-be", errors="replace")
    else:
        text = head.decode("utf-8", errors="replace").removeprefix("\ufeff")
    if _PACK_KEY.search(text) is not None:
        return True
    return text.lstrip().startswith("{") and _FLOW_PACK_KEY.search(text) is not None


def resolve(name: str, source: str = "") -> str:
    """Return the canonical format name for `name`, or raise ConvertError naming the known ones."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in FORMATS:
        raise ConvertError(source or name, None, M_("unknown format `{name}`; known formats: {known}", name=name, known=", ".join(FORMATS)))
    return key


def detect(data: bytes, source: str) -> str:
    """Return the format of `data`, or raise ConvertError listing the formats known."""
    if is_package(data):
        return "anki-package"
    if is_native_pack(source, data):  # `pack import` and the chat load these as they are; only `convert` gets here
        message = M_("this is already a QuizBot pack: nothing to convert; check it with `quizbot pack validate` and load it as it is")
        raise ConvertError(source, None, message)
    if not data.lstrip(b"\xef\xbb\xbf").strip():
        raise ConvertError(source, None, M_("the file is empty"))
    head = data[:SNIFF_BYTES]
    for bom in (b"\xef\xbb\xbf",):
        head = head.removeprefix(bom)
    codec = utf16(head)
    if codec is not None:
        text = head.decode(codec, errors="replace")
    else:
        text = head.decode("utf-8", errors="replace")
    stripped = text.lstrip()
    lower_name = source.lower()
    if stripped.startswith("<") and ("<quiz" in stripped[:4096] or lower_name.endswith(".xml")):
        return "moodle-xml"
    if stripped.startswith(("{", "[")) and ('"results"' in stripped[:4096] or '"correct_answer"' in stripped):
        return "opentdb"
    first = _TABLE_HEADER.match(stripped)
    if first is not None:
        cells = {c.strip().strip('"').lower() for c in re.split(r"[,\t;]", first.group(1))}
        if {"type", "prompt", "answer"} <= cells:
            return "csv"
        for delimiter in ("\t", ",", ";"):
            if delimiter in first.group(1) and looks_like_header(next(csv.reader([first.group(1)], delimiter=delimiter))):
                return "csv"
    if _ANKI_HEADER.search(text[:4096]):
        return "anki"
    if _GIFT_MARKS.search(text) or _GIFT_BLOCK.search(text):
        return "gift"
    if re.search(r"^(?:AUTHOR|CONFIG):", text, re.M) or _RED_KEY.search(text):
        return "red-trivia"
    lines = [line for line in text.splitlines()[:50] if line.strip()]
    if lines and sum("\t" in line for line in lines) >= max(1, len(lines) * 3 // 4):
        return "anki"
    if len(lines) >= 2 and sum("; " in line for line in lines) >= len(lines) * 3 // 4:
        return "anki"  # `front; back` lines: what Anki's text import reads without a header
    if lower_name.endswith((".csv", ".tsv")):
        return "csv"  # the sheet reader says which column it could not find
    if lower_name.endswith((".apkg", ".colpkg")):
        raise ConvertError(source, None, M_("not a valid .apkg/.colpkg (zip) file"))
    raise UnknownFormat(
        source,
        None,
        M_(
            "this is not a quiz file I know; known formats: {known} (name one with --format if the file is one of them)",
            known=", ".join(FORMATS),
        ),
    )
