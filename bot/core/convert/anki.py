"""Read Anki's "Notes in Plain Text" export: front and back separated by a tab, with `#` headers.

Headers name the separator (`#separator:tab`), whether fields hold HTML (`#html:true`) and which
columns hold the note's guid, note type, deck and tags. Cloze notes (`{{c1::answer::hint}}`)
become short items (one deletion) or blanks (several); other notes become short items.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.core.i18n import M_

from .draft import Draft, Sink, Unmappable, blanks_fields, short_fields, typed_answer
from .table import rows
from .text import decode, first_words, html_to_markdown, looks_like_html, short_hash

_SEPARATORS = {"tab": "\t", "comma": ",", "semicolon": ";", "space": " ", "pipe": "|", "colon": ":"}
_HEADER = re.compile(r"^#([a-z ]+):(.*)$")
_CLOZE_START = re.compile(r"\{\{c(\d{1,9})::")
_SOUND = re.compile(r"\[sound:[^\]]*\]")
_ANSWER_RULE = re.compile(r"<hr id=\"?answer\"?>", re.I)
_EMPHASIS = re.compile(r"(\*\*|\*|__)(\S(?:.*?\S)?)\1")
_NAMES = {"\t": "tab", ";": "semicolon", ",": "comma"}


def read(data: bytes, sink: Sink) -> None:
    """Read every note (or card, from "Cards in Plain Text") of an Anki text export into `sink`."""
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
    body = "\n".join(lines[skip:])
    separator = headers.get("separator")
    if separator is None:
        delimiter = _sniff(lines[skip : skip + 50])
        if delimiter != "\t":
            sink.assume(M_("the export has no #separator header; the fields are separated by `{delimiter}`", delimiter=delimiter))
    else:
        delimiter = _SEPARATORS.get(separator.lower(), separator[:1] or "\t")
    html_flag = headers.get("html")
    special = {
        name: int(headers[f"{name} column"]) - 1
        for name in ("guid", "notetype", "deck", "tags")
        if headers.get(f"{name} column", "").isdigit()
    }
    if "tags" in special:
        sink.assume(M_("Anki tags are not carried"))
    if html_flag is None:
        sink.assume(M_("the export does not say whether fields are HTML; fields with HTML tags are read as HTML"))
    for line, row in rows(body, delimiter, sink.source):
        line += skip
        if not any(cell.strip() for cell in row):
            continue
        fields = [cell for i, cell in enumerate(row) if i not in special.values()]
        if len(fields) == 1 and separator is None:
            sink.skip(line, "note", first_words(fields[0]), M_("no `{separator}` separates a front from a back", separator=_NAMES.get(delimiter, delimiter)))
            continue
        notetype = row[special["notetype"]] if "notetype" in special and special["notetype"] < len(row) else ""
        deck = row[special["deck"]] if "deck" in special and special["deck"] < len(row) else ""
        guid = row[special["guid"]] if "guid" in special and special["guid"] < len(row) else ""
        if len(fields) > 1 and _ANSWER_RULE.search(fields[1]):
            fields[1] = _ANSWER_RULE.split(fields[1], maxsplit=1)[1]  # a card's answer side repeats its question
        draft = note(fields, "cloze" in notetype.lower(), html_flag, line, sink)
        if draft is None:
            continue
        draft.name = f"anki-{short_hash(guid, 10)}" if guid else None
        draft.topic = deck.split("::")[-1].strip() or None if deck else None
        sink.add(draft)


def note(fields: list[str], cloze: bool, html_flag: str | None, line: int, sink: Sink) -> Draft | None:
    """Turn one note's fields (front, back, then extra fields) into a draft, or list it as not converted."""
    label = first_words(_plain(fields[0]) if fields else "")
    cloze = cloze or bool(fields and clozes(fields[0]))
    kind = "cloze" if cloze else "note"
    try:
        shown = [_field(f, html_flag, sink, line, front=i == 0) for i, f in enumerate(fields)]
        draft = _cloze(shown, line, sink) if cloze else _basic(shown, line)
    except Unmappable as exc:
        sink.skip(line, kind, label, exc.args[0])
        return None
    return draft


def _sniff(lines: list[str]) -> str:
    """Guess the separator of an export without a header, as Anki does: tab, then `;`, then `,`."""
    filled = [line for line in lines if line.strip()]
    for delimiter in ("\t", ";", ","):
        if filled and sum(delimiter in line for line in filled) >= max(1, len(filled) * 3 // 4):
            return delimiter
    return "\t"


def _plain(value: str) -> str:
    return html_to_markdown(value, image_marks=False)[0] if looks_like_html(value) else value


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


def _field(value: str, html_flag: str | None, sink: Sink, line: int, *, front: bool) -> str:
    """Return a field as Markdown; images and sounds are left out, and a front that shows one is refused.

    An image's description (`alt`) often is the answer, so it never becomes text.
    """
    sounds = _SOUND.findall(value)
    value = _SOUND.sub("", value)
    images: list[str] = []
    if html_flag == "true" or (html_flag is None and looks_like_html(value)) or "<img" in value.lower():
        value, images = html_to_markdown(value, image_marks=False)
    value = value.strip()
    media = [*images, *(s[7:-1] for s in sounds)]
    if media and front:
        what = "an image or a sound" if value else "only an image or a sound"
        raise Unmappable(M_("the front shows {what} (`{file}`); QuizBot carries no media, so the question cannot be asked", what=what, file=media[0]))
    if media and not value:
        raise Unmappable(M_("the field holds only media (`{file}`); QuizBot carries no media", file=media[0]))
    if media:
        sink.assume(M_("images and sounds on the back or in extra fields are left out"), line)
    return value


def _basic(fields: list[str], line: int) -> Draft:
    front = fields[0] if fields else ""
    back = fields[1].strip() if len(fields) > 1 else ""
    if not back:
        raise Unmappable(M_("the card has no back to check an answer against"))
    back = typed_answer(_EMPHASIS.sub(r"\2", back))  # what a learner types has no bold or italics
    extra = "\n\n".join(f for f in fields[2:] if f.strip()) or None
    return Draft(line, "note", None, short_fields(front, [back], explanation=extra))


def _cloze(fields: list[str], line: int, sink: Sink) -> Draft:
    text = fields[0] if fields else ""
    extra = "\n\n".join(f for f in fields[1:] if f.strip()) or None
    found = clozes(text)
    deletions = [(c.number, c.answer, c.hint) for c in found]
    if not deletions:
        raise Unmappable(M_("a cloze note without {cloze} deletions", cloze="{{c1::...}}"))
    hints = "; ".join(dict.fromkeys(h for _, _, h in deletions if h)) or None
    answers = list(dict.fromkeys(a for _, a, _ in deletions))
    if len(answers) == 1:
        prompt = replace_clozes(text, found, lambda c: "_____")
        return Draft(line, "cloze", None, short_fields(prompt, answers, hint=hints, explanation=extra))
    sink.assume(M_("cloze notes with several deletions become blanks whose menu lists the deleted texts"), line)
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
