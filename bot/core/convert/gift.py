"""Read Moodle's GIFT text format.

Questions are separated by blank lines; `//` starts a comment line; `$CATEGORY:` sets the topic
of the questions after it; `::title::` names a question; `{...}` holds the answers:
`=right ~wrong #feedback`, `{T}`/`{F}`, `{#3.14:0.01}` or `{#1..5}`, `{=a =b}`, `%50%` weights
and `####general feedback`. `\\~ \\= \\# \\{ \\} \\: \\\\` escape those characters and `\\n` is a newline.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.core.i18n import M_

from .draft import Draft, Sink, Unmappable, add_explanation, choice_fields, number_range, short_fields
from .result import ConvertError
from .text import decode, first_words, html_to_markdown, looks_like_html

# Escaped characters are swapped for private-use code points while the structure is parsed.
_ESCAPES = {"\\:": "\ue001", "\\#": "\ue002", "\\=": "\ue003", "\\{": "\ue004", "\\}": "\ue005", "\\~": "\ue006", "\\n": "\ue007"}
_RESTORE = {"\ue001": ":", "\ue002": "#", "\ue003": "=", "\ue004": "{", "\ue005": "}", "\ue006": "~", "\ue007": "\n", "\ue000": "\\"}
_WEIGHT = re.compile(r"^%(-?\d+(?:\.\d+)?)%")
_FORMAT = re.compile(r"^\s*\[(html|markdown|plain|moodle)\]", re.I)
_WILDCARD = re.compile(r"(?<!\\)\*")

Markdown = Callable[[str], str]


@dataclass
class _Chunk:
    line: int
    lines: list[str]


def read(data: bytes, sink: Sink) -> None:
    """Read every question of a GIFT file into `sink`."""
    text = decode(data, sink.source).replace("\r\n", "\n").replace("\r", "\n")
    topic: str | None = None
    for chunk in _chunks(text):
        body = _escape("\n".join(chunk.lines)).strip()
        if body.startswith("$CATEGORY:"):
            first, _, rest = body.partition("\n")
            topic = _category(_restore(first[len("$CATEGORY:") :]))
            body = rest.strip()
            if not body:
                continue
        _question(body, chunk.line, topic, sink)


def _chunks(text: str) -> list[_Chunk]:
    chunks: list[_Chunk] = []
    current: _Chunk | None = None
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip().startswith("//"):
            continue
        if not line.strip():
            if current is not None:
                chunks.append(current)
                current = None
            continue
        if current is None:
            current = _Chunk(number, [])
        current.lines.append(line)
    if current is not None:
        chunks.append(current)
    return chunks


def _escape(text: str) -> str:
    text = text.replace("\\\\", "\ue000")
    for escaped, placeholder in _ESCAPES.items():
        text = text.replace(escaped, placeholder)
    return text


def _restore(text: str) -> str:
    for placeholder, char in _RESTORE.items():
        text = text.replace(placeholder, char)
    return text


def _category(path: str) -> str | None:
    parts = [p.strip() for p in path.strip().split("/") if p.strip() and not p.strip().startswith("$")]
    if parts and parts[0] == "top":
        parts = parts[1:]
    return parts[-1] if parts else None


def _question(body: str, line: int, topic: str | None, sink: Sink) -> None:
    name: str | None = None
    if body.startswith("::"):
        end = body.find("::", 2)
        if end != -1:
            name = " ".join(_restore(body[2:end]).split()) or None
            body = body[end + 2 :].strip()
    start, finish = body.find("{"), body.find("}")
    if start == -1 and finish == -1:
        sink.skip(line, "description", name or first_words(_restore(body)), M_("a description holds no question"))
        return
    if finish == -1:
        at = line + body[:start].count("\n")
        raise ConvertError(
            sink.source, at, M_("`{brace}` opens an answer block that is never closed (a GIFT question ends at a blank line)", brace="{")
        )
    if start == -1 or finish < start:
        at = line + body[:finish].count("\n")
        raise ConvertError(sink.source, at, M_("`{brace}` closes an answer block that was never opened (write {escaped} for a brace in text)", brace="}", escaped="\\}"))
    if body.find("{", start + 1, finish) != -1:
        at = line + body[:finish].count("\n")
        raise ConvertError(sink.source, at, M_("`{brace}` inside an answer block (write {escaped} for a brace in text)", brace="{", escaped="\\{"))
    answers = body[start + 1 : finish].strip()
    before, after = body[:start].rstrip(), body[finish + 1 :].strip()
    fmt = "moodle"
    marker = _FORMAT.match(before)
    if marker:
        fmt = marker.group(1).lower()
        before = before[marker.end() :].lstrip()
    raw_prompt = f"{before} _____ {after}" if after else before
    general = ""
    if "####" in answers:
        answers, _, general = answers.rpartition("####")
        answers = answers.strip()

    def md(value: str) -> str:
        return _text(value, fmt, sink, line)

    prompt = md(raw_prompt)
    label = name or first_words(prompt)
    kind = _kind(answers)
    try:
        draft = _READERS[kind](answers, prompt, md, sink, line)
    except Unmappable as exc:
        sink.skip(line, kind, label, exc.args[0])
        return
    if general.strip():
        add_explanation(draft.fields, md(general))
    draft.name, draft.topic = name, topic
    sink.add(draft)


def _text(value: str, fmt: str, sink: Sink, line: int) -> str:
    value = _restore(value).strip()
    marker = _FORMAT.match(value)  # an answer or feedback may carry its own [format] marker
    if marker:
        fmt = marker.group(1).lower()
        value = value[marker.end() :].lstrip()
    if fmt == "html" or (fmt == "moodle" and looks_like_html(value)):
        markdown, images = html_to_markdown(value)
        if images:
            sink.assume(M_("images are not carried over; the text names them as [image: ...]"), line)
        return markdown
    return value


def _split_feedback(part: str) -> tuple[str, str]:
    text, _, feedback = part.partition("#")
    return text.strip(), feedback.strip()


def _kind(answers: str) -> str:
    """Name the question type an answer block makes, as Moodle decides it."""
    if not answers:
        return "essay"
    if answers.startswith("#"):
        return "numerical"
    if "~" in answers:
        return "multichoice"
    if "=" in answers and "->" in answers:
        return "matching"
    if answers.split("#", 1)[0].strip() in ("T", "TRUE", "F", "FALSE"):
        return "truefalse"
    return "shortanswer"


def _essay(answers: str, prompt: str, md: Markdown, sink: Sink, line: int) -> Draft:
    raise Unmappable(M_("an essay question has no answer to check"))


def _matching(answers: str, prompt: str, md: Markdown, sink: Sink, line: int) -> Draft:
    raise Unmappable(M_("matching questions have no QuizBot counterpart"))


def _truefalse(answers: str, prompt: str, md: Markdown, sink: Sink, line: int) -> Draft:
    bits = answers.split("#", 2)
    wrong = bits[1].strip() if len(bits) > 1 else ""
    right = bits[2].strip() if len(bits) > 2 else ""
    true_right = bits[0].strip() in ("T", "TRUE")
    choices = [
        ("True", true_right, md(right if true_right else wrong)),
        ("False", not true_right, md(wrong if true_right else right)),
    ]
    return Draft(line, "truefalse", None, choice_fields(prompt, choices, multiple=False, shuffle=False))


def _parts(answers: str, sep: str) -> list[tuple[str, float | None, str]]:
    """Split answers on `sep`, returning (text, weight or None, feedback)."""
    out: list[tuple[str, float | None, str]] = []
    for raw in answers.split(sep):
        raw = raw.strip()
        if not raw:
            continue
        weight: float | None = None
        match = _WEIGHT.match(raw)
        if match:
            weight = float(match.group(1))
            raw = raw[match.end() :]
        text, feedback = _split_feedback(raw)
        out.append((text, weight, feedback))
    return out


def _multichoice(answers: str, prompt: str, md: Markdown, sink: Sink, line: int) -> Draft:
    single = "=" in answers
    choices: list[tuple[str, bool, str | None]] = []
    partial = False
    for raw in answers.replace("=", "~=").split("~"):
        raw = raw.strip()
        if not raw:
            continue
        if raw.startswith("="):
            weight = 100.0
            raw = raw[1:]
        else:
            match = _WEIGHT.match(raw)
            weight = float(match.group(1)) if match else 0.0
            raw = raw[match.end() :] if match else raw
        text, feedback = _split_feedback(raw)
        right = weight >= 100 if single else weight > 0
        partial = partial or (single and 0 < weight < 100)
        choices.append((md(text), right, md(feedback)))
    if partial:
        sink.assume(M_("answers worth partial credit count as wrong; only the best answer is right"), line)
    if not single:
        sink.assume(M_("multiple-answer questions are all-or-nothing: the learner selects every right choice"), line)
    return Draft(line, "multichoice", None, choice_fields(prompt, choices, multiple=not single))


def _short(answers: str, prompt: str, md: Markdown, sink: Sink, line: int) -> Draft:
    accept: list[str] = []
    wildcards: list[str] = []
    right_feedback = ""
    for text, weight, feedback in _parts(answers, "="):
        text = _restore(text)
        if weight is not None and weight < 100:
            sink.assume(M_("answers worth partial credit are not accepted"), line)
            continue
        if _WILDCARD.search(text):
            wildcards.append(text)
            continue
        accept.append(text.replace("\\*", "*"))
        right_feedback = right_feedback or feedback
    if wildcards:
        if not accept:
            raise Unmappable(M_("its right answer `{answer}` uses the `*` wildcard; QuizBot compares whole answers", answer=wildcards[0]))
        sink.assume(M_("right answers with a `*` wildcard were left out; the plain ones remain"), line)
    fields = short_fields(prompt, accept)
    add_explanation(fields, md(right_feedback))
    return Draft(line, "shortanswer", None, fields)


def _number(text: str) -> tuple[float, float]:
    text = _FORMAT.sub("", _restore(text), count=1).strip()
    try:
        if ".." in text:
            low, high = text.split("..", 1)
            return number_range(low, high)
        if ":" in text:
            value, tolerance = text.split(":", 1)
            return float(value), float(tolerance)
        return float(text), 0.0
    except (ValueError, ArithmeticError) as exc:
        raise Unmappable(M_("`{text}` is not a number, a number:tolerance or a min..max range", text=text)) from exc


def _numerical(answers: str, prompt: str, md: Markdown, sink: Sink, line: int) -> Draft:
    answers = answers.removeprefix("#")
    hint = ""
    if "~" in answers:
        answers, _, wrong = answers.partition("~")
        _, hint = _split_feedback(wrong)
    number: tuple[float, float] | None = None
    extra: list[str] = []
    right_feedback = ""
    for text, weight, feedback in _parts(answers, "="):
        if weight is not None and weight < 100:
            sink.assume(M_("answers worth partial credit are not accepted"), line)
            if feedback:
                sink.assume(M_("feedback on answers worth partial credit is not carried"), line)
            continue
        value = _number(text)
        right_feedback = right_feedback or feedback
        if number is None:
            number = value
        else:
            extra.append(_restore(text).split(":", 1)[0].strip())
            sink.assume(M_("further right numbers are accepted as exact text, without their tolerance"), line)
    if number is None:
        raise Unmappable(M_("no answer gives full marks"))
    if hint:
        sink.assume(M_("the feedback for a wrong number became the hint"), line)
    fields = short_fields(prompt, extra, number=number, hint=md(hint))
    add_explanation(fields, md(right_feedback))
    return Draft(line, "numerical", None, fields)


_READERS: dict[str, Callable[[str, str, Markdown, Sink, int], Draft]] = {
    "essay": _essay,
    "numerical": _numerical,
    "multichoice": _multichoice,
    "matching": _matching,
    "truefalse": _truefalse,
    "shortanswer": _short,
}
