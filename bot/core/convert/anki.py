"""Read Anki's "Notes in Plain Text" export: front and back separated by a tab, with `#` headers.

Headers name the separator (`#separator:tab`), whether fields hold HTML (`#html:true`) and which
columns hold the note's guid, note type, deck and tags. Cloze notes (`{{c1::answer::hint}}`)
become short items (one deletion) or blanks (several); other notes become short items.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .draft import Draft, Sink, Unmappable, blanks_fields, short_fields
from .table import rows
from .text import decode, first_words, html_to_markdown, looks_like_html, short_hash

_SEPARATORS = {"tab": "\t", "comma": ",", "semicolon": ";", "space": " ", "pipe": "|", "colon": ":"}
_HEADER = re.compile(r"^#([a-z ]+):(.*)$")
_CLOZE_START = re.compile(r"\{\{c(\d+)::")
_SOUND = re.compile(r"\[sound:[^\]]*\]")
MAX_TYPED_ANSWER = 120


def read(data: bytes, sink: Sink) -> None:
    """Read every note of an Anki text export into `sink`."""
    text = decode(data, sink.source).replace("\r\n", "\n")
    lines = text.split("\n")
    headers: dict[str, str] = {}
    skip = 0
    for raw in lines:
        match = _HEADER.match(raw)
        if not match:
            break
        headers[match.group(1).strip()] = match.group(2).strip()
        skip += 1
    separator = headers.get("separator", "tab")
    delimiter = _SEPARATORS.get(separator.lower(), separator[:1] or "\t")
    html_flag = headers.get("html")
    body = "\n".join(lines[skip:])
    special = {
        name: int(headers[f"{name} column"]) - 1
        for name in ("guid", "notetype", "deck", "tags")
        if headers.get(f"{name} column", "").isdigit()
    }
    if "tags" in special:
        sink.assume("Anki tags are not carried")
    if html_flag is None:
        sink.assume("the export does not say whether fields are HTML; fields with HTML tags are read as HTML")
    for line, row in rows(body, delimiter, sink.source):
        line += skip
        if not any(cell.strip() for cell in row):
            continue
        fields = [cell for i, cell in enumerate(row) if i not in special.values()]
        notetype = row[special["notetype"]] if "notetype" in special and special["notetype"] < len(row) else ""
        deck = row[special["deck"]] if "deck" in special and special["deck"] < len(row) else ""
        guid = row[special["guid"]] if "guid" in special and special["guid"] < len(row) else ""
        shown = [_field(f, html_flag, sink, line) for f in fields]
        front = shown[0] if shown else ""
        cloze = "cloze" in notetype.lower() or bool(clozes(front))
        kind = "cloze" if cloze else "note"
        try:
            draft = _cloze(shown, line, sink) if cloze else _basic(shown, line)
        except Unmappable as exc:
            sink.skip(line, kind, first_words(replace_clozes(front, clozes(front), lambda c: c.answer)), str(exc))
            continue
        draft.name = f"anki-{short_hash(guid, 10)}" if guid else None
        draft.topic = deck.split("::")[-1].strip() or None if deck else None
        sink.add(draft)


@dataclass(frozen=True)
class Cloze:
    """One deletion `{{cN::answer::hint}}` and where it stands in the text."""

    start: int
    end: int
    number: int
    answer: str
    hint: str


def clozes(text: str) -> list[Cloze]:
    """Find the cloze deletions in one pass.

    A lazy regular expression (`{{c1::(.*?)}}`) rescans the rest of the text from every unclosed
    `{{c1::`, which is quadratic: 100 KB of them took 41 s. Here each deletion ends at the first `}}`
    after it, and once no `}}` is left no later deletion can close either.
    """
    found: list[Cloze] = []
    at = 0
    while (match := _CLOZE_START.search(text, at)) is not None:
        close = text.find("}}", match.end())
        if close == -1:
            break
        inner = text[match.end() : close]
        answer, _, hint = inner.partition("::")
        found.append(Cloze(match.start(), close + 2, int(match.group(1)), answer.strip(), hint.strip()))
        at = close + 2
    return found


def replace_clozes(text: str, found: list[Cloze], make: Callable[[Cloze], str]) -> str:
    """Return `text` with each deletion replaced by `make(deletion)`."""
    parts: list[str] = []
    at = 0
    for cloze in found:
        parts.append(text[at : cloze.start])
        parts.append(make(cloze))
        at = cloze.end
    parts.append(text[at:])
    return "".join(parts)


def _field(value: str, html_flag: str | None, sink: Sink, line: int) -> str:
    value = _SOUND.sub("", value)
    if html_flag == "true" or (html_flag is None and looks_like_html(value)):
        markdown, images = html_to_markdown(value)
        if images:
            sink.assume("images are not carried over; the text names them as [image: ...]", line)
        return markdown
    return value.strip()


def _basic(fields: list[str], line: int) -> Draft:
    front = fields[0] if fields else ""
    back = fields[1].strip() if len(fields) > 1 else ""
    if not back:
        raise Unmappable("the card has no back to check an answer against")
    if "\n" in back or len(back) > MAX_TYPED_ANSWER:
        raise Unmappable(
            f"the back is {len(back)} characters{' on several lines' if chr(10) in back else ''}; "
            "QuizBot checks typed answers, so the back must be a short answer"
        )
    extra = "\n\n".join(f for f in fields[2:] if f.strip()) or None
    return Draft(line, "note", None, short_fields(front, [back], explanation=extra))


def _cloze(fields: list[str], line: int, sink: Sink) -> Draft:
    text = fields[0] if fields else ""
    extra = "\n\n".join(f for f in fields[1:] if f.strip()) or None
    found = clozes(text)
    deletions = [(c.number, c.answer, c.hint) for c in found]
    if not deletions:
        raise Unmappable("a cloze note without {{c1::...}} deletions")
    hints = "; ".join(dict.fromkeys(h for _, _, h in deletions if h)) or None
    answers = list(dict.fromkeys(a for _, a, _ in deletions))
    if len(answers) == 1:
        prompt = replace_clozes(text, found, lambda c: "_____")
        return Draft(line, "cloze", None, short_fields(prompt, answers, hint=hints, explanation=extra))
    sink.assume("cloze notes with several deletions become blanks whose menu lists the deleted texts", line)
    numbering: dict[str, int] = {}
    for _, answer, _ in deletions:
        numbering.setdefault(answer, len(numbering) + 1)
    code = replace_clozes(text, found, lambda c: "{{" + str(numbering[c.answer]) + "}}")
    fields_out = blanks_fields(
        "Choose the right option for each blank.",
        code,
        answers,
        {n: a for a, n in numbering.items()},
        hint=hints,
        explanation=extra,
    )
    return Draft(line, "cloze", None, fields_out)
