"""Say pydantic's validation errors of a pack in a pack author's words, at the line of the field.

Each pydantic error type maps to a sentence of our own in the catalogs (`M_`): the CLI prints it in
English, the chat shows it in the admin's language. pydantic's own English text never reaches anyone.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from pydantic import BaseModel, ValidationError

from bot.core.errors import Problem
from bot.core.i18n import M_, N_

from . import yamlpos
from .models import (
    BlanksQuestion,
    Choice,
    ChoiceQuestion,
    CodeQuestion,
    EntryError,
    Limits,
    NumberSpec,
    Pack,
    ShortQuestion,
    Topic,
)


def describe(path: tuple[str | int, ...], data: Any, root: str = "pack") -> str:
    """Name a field for people: questions[3] (id `grad-flag`).choices[1].text."""
    out = ""
    node = data
    for i, part in enumerate(path):
        if isinstance(part, int):
            out += f"[{part}]"
            if i == 1 and path[0] == "questions" and isinstance(node, list) and part < len(node):
                qid = node[part].get("id") if isinstance(node[part], dict) else None
                if qid:
                    out += f" (id `{qid}`)"
        else:
            out += f".{part}" if out else str(part)
        node = node[part] if _has(node, part) else None
    return out or root


def _has(node: Any, part: str | int) -> bool:
    if isinstance(node, dict):
        return part in node
    return isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)


def problems_from(
    exc: ValidationError, data: Any, positions: yamlpos.Positions, shown: str, root: str = "pack"
) -> list[Problem]:
    """Say each of pydantic's errors in our words (`root`: what the data as a whole is called)."""
    located: list[tuple[tuple[str | int, ...], Any]] = []
    for error in exc.errors():
        # Follow pydantic's location through the data; parts that are not in the data are
        # union tags (the question type), which people never wrote.
        path: tuple[str | int, ...] = ()
        node: Any = data
        last = len(error["loc"]) - 1
        for i, part in enumerate(error["loc"]):
            if _has(node, part):
                path = (*path, part)
                node = node[part]
            elif isinstance(node, dict) and isinstance(part, str) and part.isdigit() and int(part) in node:
                path = (*path, int(part))
                node = node[int(part)]
            elif isinstance(node, dict) and error["type"] == "invalid_key" and i == last:  # the key itself, not a union tag
                key = next((k for k in node if str(k) == str(part)), part)  # pydantic names a key that is not text as text
                path = (*path, key)
        located.append((path, error))
    # A misspelt key first, with the field it was meant to be; that field's "missing" folds into it.
    meant: set[tuple[tuple[str | int, ...], str]] = set()
    for path, error in located:
        if error["type"] == "extra_forbidden" and path:
            guess = did_you_mean(path, data)
            if guess:
                meant.add((path[:-1], guess))
    problems: list[Problem] = []
    seen: set[tuple[int, int, str]] = set()
    for path, error in located:
        kind = error["type"]
        if kind == "missing" and (path, str(error["loc"][-1])) in meant:
            continue
        line, col, message = _explain_error(path, error, data, positions, root)
        key = (line, col, message)
        if key not in seen:
            seen.add(key)
            problems.append(Problem(shown, line, col, message))
    return sorted(problems, key=lambda p: (p.line, p.col))


def _fields_at(path: tuple[str | int, ...], data: Any) -> list[str]:
    """The keys allowed in the mapping at `path`, when the format defines that mapping."""
    model: type[BaseModel] | None = None
    if path == ():
        model = Pack
    elif path[0] == "topics" and len(path) == 2:
        model = Topic
    elif path[0] == "questions" and len(path) >= 2:
        question = data["questions"][path[1]] if _has(data.get("questions"), path[1]) else None
        kind = question.get("type") if isinstance(question, dict) else None
        if len(path) == 2:
            model = _QUESTION_TYPES.get(kind) if isinstance(kind, str) else None
        elif len(path) == 4 and path[2] == "choices":
            model = Choice
        elif len(path) == 3:
            model = _PARTS.get(str(path[2]))
    return list(model.model_fields) if model is not None else []


def did_you_mean(path: tuple[str | int, ...], data: Any) -> str | None:
    """The field an unknown key at `path` was most likely meant to be, if one close to it is unused."""
    fields = _fields_at(path[:-1], data)
    parent: Any = data
    for part in path[:-1]:
        parent = parent[part]
    unused = [f for f in fields if not (isinstance(parent, dict) and f in parent)]
    matches = difflib.get_close_matches(str(path[-1]), unused, n=1, cutoff=0.6)
    return matches[0] if matches else None


def _explain_error(
    path: tuple[str | int, ...], error: Any, data: Any, positions: yamlpos.Positions, root: str
) -> tuple[int, int, str]:
    """Locate one validation error and say it in a pack author's words."""
    kind: str = error["type"]
    ctx: dict[str, Any] = error.get("ctx") or {}
    value = error.get("input")
    where = describe(path, data, root)
    shown = _short(value)
    if kind == "missing":
        line, col = positions.value(path)
        return line, col, M_("{where}: missing required field `{field}`", where=where, field=error["loc"][-1])
    if kind in ("extra_forbidden", "invalid_key"):  # invalid_key: a key that is not text (`1.5:`), unknown too
        line, col = positions.key(path)
        parent = describe(path[:-1], data) + ": " if path[:-1] else ""
        guess = did_you_mean(path, data)
        if guess:
            return line, col, M_("{parent}unknown key `{key}`: did you mean `{guess}`?", parent=parent, key=path[-1], guess=guess)
        allowed = ", ".join(_fields_at(path[:-1], data))
        if allowed:
            return line, col, M_("{parent}unknown key `{key}` (allowed here: {allowed})", parent=parent, key=path[-1], allowed=allowed)
        return line, col, M_("{parent}unknown key `{key}`", parent=parent, key=path[-1])
    cause = ctx.get("error")
    if kind == "value_error" and isinstance(cause, EntryError):  # a model's own check: its words, at the entry
        entry = path if cause.index is None else (*path, cause.index)
        line, col = positions.value(entry)
        return line, col, M_("{where}: {problem}", where=describe(entry, data, root), problem=cause.message)
    line, col = positions.value(path)
    if kind == "union_tag_invalid":
        line, col = positions.value((*path, "type"))
        given = _short(_get(data, (*path, "type")))
        return line, col, M_("{where}.type: `{given}` is not one of choice, blanks, short, code", where=where, given=given)
    if kind == "union_tag_not_found":
        return line, col, M_("{where}: missing required field `type` (choice, blanks, short or code)", where=where)
    if kind in ("bool_type", "bool_parsing"):
        return line, col, M_("{where}: write `true` or `false` (YAML's yes/no/on/off are read as text here)", where=where)
    if kind == "literal_error":
        allowed = ", ".join(re.findall(r"'([^']*)'", str(ctx.get("expected", ""))))
        return line, col, M_("{where}: `{given}` is not one of {allowed}", where=where, given=shown, allowed=allowed)
    if kind == "string_too_long":
        return line, col, M_("{where}: {n} characters, at most {most} allowed", where=where, n=len(value), most=ctx.get("max_length"))
    if kind == "string_too_short":
        return line, col, M_("{where}: must not be empty", where=where)
    if kind == "string_pattern_mismatch":
        words = _PATTERN_WORDS.get(str(path[-1]) if path else "")
        if words is None:
            return line, col, M_("{where}: `{given}` is not a valid value", where=where, given=shown)
        return line, col, M_("{where}: `{given}` is not a valid {what}", where=where, given=shown, what=words)
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return line, col, M_("{where}: `{given}` is not a whole number", where=where, given=shown)
    if kind in ("float_parsing", "float_type"):
        return line, col, M_("{where}: `{given}` is not a number", where=where, given=shown)
    if kind == "finite_number":
        return line, col, M_("{where}: must be a finite number", where=where)
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        limit = next(iter(ctx.values()), "?")
        return line, col, M_(_OUT_OF_RANGE[kind], where=where, given=shown, limit=limit)
    if kind in ("too_short", "too_long"):
        limit = ctx.get("min_length" if kind == "too_short" else "max_length", "?")
        found = ctx.get("actual_length", "?")
        if kind == "too_short" and limit == 1 and found == 0:
            return line, col, M_("{where}: the list is empty; give at least one entry", where=where)
        if kind == "too_short":
            return line, col, M_("{where}: at least {limit} entries (found {found})", where=where, limit=limit, found=found)
        return line, col, M_("{where}: at most {limit} entries (found {found})", where=where, limit=limit, found=found)
    if kind in ("string_type", "list_type", "dict_type", "model_type", "model_attributes_type"):
        return line, col, M_(_WRONG_TYPE.get(kind, _WRONG_TYPE["model_type"]), where=where, given=shown)
    # A kind of error this loader has no words for: name the field and what was found, not pydantic's English.
    return line, col, M_("{where}: `{given}` is not allowed here", where=where, given=shown)


_OUT_OF_RANGE = {
    "greater_than": N_("{where}: `{given}` is out of range (must be more than {limit})"),
    "greater_than_equal": N_("{where}: `{given}` is out of range (must be at least {limit})"),
    "less_than": N_("{where}: `{given}` is out of range (must be less than {limit})"),
    "less_than_equal": N_("{where}: `{given}` is out of range (must be at most {limit})"),
}
_WRONG_TYPE = {
    "string_type": N_("{where}: should be text, not `{given}`"),
    "list_type": N_("{where}: should be a list, not `{given}`"),
    "dict_type": N_("{where}: should be a mapping, not `{given}`"),
    "model_type": N_("{where}: should be a mapping of keys and values, not `{given}`"),
}


_QUESTION_TYPES: dict[str, type[BaseModel]] = {
    "choice": ChoiceQuestion, "blanks": BlanksQuestion, "short": ShortQuestion, "code": CodeQuestion,
}
_PARTS: dict[str, type[BaseModel]] = {"limits": Limits, "number": NumberSpec}
_PATTERN_WORDS = {
    "pack": M_("pack id: 2-40 of a-z, 0-9 and '-', starting and ending with a letter or digit"),
    "id": M_("id: up to 64 of A-Z, a-z, 0-9, '_', '.' and '-', starting with a letter or digit"),
    "language": M_("language tag (BCP 47), such as en, es, de or pt-BR"),
}


def _get(data: Any, path: tuple[str | int, ...]) -> Any:
    node = data
    for part in path:
        if not _has(node, part):
            return None
        node = node[part]
    return node


def _short(value: Any) -> str:
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)  # as YAML writes it
    return text if len(text) <= 40 else text[:37] + "..."
