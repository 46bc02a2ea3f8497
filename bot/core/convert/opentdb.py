"""Read an Open Trivia DB API response (or its `results` list), in any of its three encodings."""

from __future__ import annotations

import base64
import binascii
import html
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from bot.core.i18n import M_

from .draft import Draft, Sink, Unmappable, choice_fields
from .result import ConvertError
from .text import decode, first_words

_RESPONSE_CODES = {
    1: M_("the API found no questions for that query"),
    2: M_("the API call had an invalid parameter"),
    3: M_("the session token does not exist"),
    4: M_("the session token has returned every question"),
    5: M_("the API rate limit was hit"),
}
_DIFFICULTIES = ("easy", "medium", "hard")


def read(data: bytes, sink: Sink) -> None:
    """Read every question of an Open Trivia DB response into `sink`."""
    text = decode(data, sink.source)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConvertError(sink.source, exc.lineno, M_("broken JSON: {detail}", detail=exc.msg)) from exc
    except RecursionError as exc:
        raise ConvertError(sink.source, None, M_("the JSON nests too deeply")) from exc
    except ValueError as exc:  # a number of more than 4,300 digits, which Python refuses to read
        raise ConvertError(sink.source, None, M_("broken JSON: {detail}", detail=str(exc).split(";")[0])) from exc
    if isinstance(document, dict):
        code = document.get("response_code", 0)
        if code in _RESPONSE_CODES:
            raise ConvertError(sink.source, 1, M_("response_code {code}: {meaning}", code=code, meaning=_RESPONSE_CODES[code]))
        results = document.get("results")
    else:
        results = document
    if not isinstance(results, list):
        raise ConvertError(sink.source, 1, M_('an Open Trivia DB response has a "results" list'))
    lines = _object_lines(text, nested=isinstance(document, dict))
    unwrap = _decoder(results)
    if unwrap is not html.unescape:
        sink.assume(M_("the response was {encoding}-encoded; it was decoded", encoding="base64" if unwrap is _b64 else "URL"))
    for index, result in enumerate(results):
        line = lines[index] if index < len(lines) else 1
        if not isinstance(result, dict):
            sink.skip(line, "result", f"results[{index}]", M_("not a question object"))
            continue
        fields = {k: _decode_all(v, unwrap) for k, v in result.items()}
        label = first_words(str(fields.get("question", f"results[{index}]")))
        kind = str(fields.get("type", ""))
        try:
            sink.add(_item(fields, line, kind))
        except Unmappable as exc:
            sink.skip(line, kind or "result", label, exc.args[0])


def _item(fields: dict[str, Any], line: int, kind: str) -> Draft:
    question, right, wrong = fields.get("question"), fields.get("correct_answer"), fields.get("incorrect_answers")
    if not isinstance(question, str) or not isinstance(right, str) or not isinstance(wrong, list):
        raise Unmappable(M_("needs `question`, `correct_answer` and `incorrect_answers`"))
    difficulty = fields.get("difficulty") if fields.get("difficulty") in _DIFFICULTIES else None
    if kind == "boolean":
        choices = [(word, word.lower() == right.strip().lower(), None) for word in ("True", "False")]
        built = choice_fields(question, choices, multiple=False, shuffle=False, difficulty=difficulty)
    elif kind == "multiple":
        choices = [(right, True, None)] + [(str(w), False, None) for w in wrong]
        built = choice_fields(question, choices, multiple=False, difficulty=difficulty)
    else:
        raise Unmappable(M_("unknown question type `{kind}` (Open Trivia DB has multiple and boolean)", kind=kind))
    category = fields.get("category")
    return Draft(line, kind, None, built, topic=category.strip() if isinstance(category, str) and category.strip() else None)


def _b64(value: str) -> str:
    try:
        return base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return value


def _decoder(results: list[Any]) -> Callable[[str], str]:
    kinds = {r.get("type") for r in results if isinstance(r, dict)}
    if kinds & {"bXVsdGlwbGU=", "Ym9vbGVhbg=="}:
        return _b64
    questions = [r.get("question", "") for r in results if isinstance(r, dict) and isinstance(r.get("question"), str)]
    if questions and all(" " not in q for q in questions) and any("%20" in q for q in questions):
        return unquote
    return html.unescape


def _decode_all(value: Any, unwrap: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return unwrap(value).strip()
    if isinstance(value, list):
        return [_decode_all(v, unwrap) for v in value]
    return value


def _object_lines(text: str, *, nested: bool) -> list[int]:
    """Return the line where each question object starts (objects at depth 2, or 1 for a bare list)."""
    want = 2 if nested else 1
    lines: list[int] = []
    depth, line, in_string, escaped = 0, 1, False, False
    for char in text:
        if char == "\n":
            line += 1
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char in "{[":
            if char == "{" and depth == want:
                lines.append(line)
            depth += 1
        elif char in "}]":
            depth -= 1
    return lines
