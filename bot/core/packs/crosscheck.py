"""Checks across fields and questions: unique ids, listed topics, and each question type's own rules.

They run on the validated pack. When validation fails they still run on the raw data, as far as
they do not depend on what failed, so one run of the validator lists every problem: duplicate
question and topic ids, topics that are not listed, and the type rules of each question that is
valid on its own (or once a misspelt key is read as the key it was meant to be).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError

from bot.core.errors import Problem
from bot.core.i18n import M_
from bot.core.words import blank

from . import yamlpos
from .explain import describe, did_you_mean
from .models import AnyQuestion, Pack, Question

FieldPath = tuple[str | int, ...]
Add = Callable[[FieldPath, str], None]

_QUESTION: TypeAdapter[AnyQuestion] = TypeAdapter(Question)


def _adding_to(problems: list[Problem], pos: yamlpos.Positions, shown: str) -> Add:
    def add(path: FieldPath, message: str) -> None:
        line, col = pos.key(path)  # the field's name: where an author looks first
        problems.append(Problem(shown, line, col, message))

    return add


def cross_check(pack: Pack, pos: yamlpos.Positions, shown: str) -> list[Problem]:
    """Check what the models alone cannot: the pack's questions and topics together, each type's rules."""
    problems: list[Problem] = []
    add = _adding_to(problems, pos, shown)
    labels = [f"questions[{i}] (id `{q.id}`)" for i, q in enumerate(pack.questions)]
    _ids_and_topics([t.id for t in pack.topics], [(q.id, q.topic, True) for q in pack.questions], labels, add)
    for i, q in enumerate(pack.questions):
        _check_question(q, item_adder(add, ("questions", i), labels[i]))
    return problems


def raw_check(data: dict[str, Any], pos: yamlpos.Positions, shown: str) -> tuple[list[Problem], list[tuple[int, AnyQuestion]]]:
    """Check a pack that failed validation as far as its raw data allows.

    Return the problems, and the questions valid on their own (with their index) for further checks.
    """
    problems: list[Problem] = []
    add = _adding_to(problems, pos, shown)
    raw_topics = data.get("topics", [])
    topic_ids: list[str] | None = None
    if isinstance(raw_topics, list) and all(isinstance(t, dict) and isinstance(t.get("id"), str) for t in raw_topics):
        topic_ids = [t["id"] for t in raw_topics]
    raw_questions = data.get("questions")
    raw_questions = raw_questions if isinstance(raw_questions, list) else []
    entries: list[tuple[str | None, str | None, bool]] = []
    for raw in raw_questions:
        raw = raw if isinstance(raw, dict) else {}
        qid, topic = raw.get("id"), raw.get("topic")
        entries.append((qid if isinstance(qid, str) else None, topic if isinstance(topic, str) else None, "topic" not in raw or isinstance(topic, str)))
    labels = [describe(("questions", i), data) for i in range(len(raw_questions))]
    _ids_and_topics(topic_ids, entries, labels, add)
    valid: list[tuple[int, AnyQuestion]] = []
    for i, raw in enumerate(raw_questions):
        question = _valid_alone(raw, data, i)
        if question is not None:
            _check_question(question, item_adder(add, ("questions", i), labels[i]))
            valid.append((i, question))
    return problems, valid


def _check_question(question: AnyQuestion, add: Add) -> None:
    """The rules of every question (a prompt that shows something), then its type's own."""
    from bot.core.items import kind_of  # the type modules read pack models: import them late, no cycle

    if blank(question.prompt):  # " " or a zero-width space passes the length check, and shows nothing
        add(("prompt",), M_("only spaces or invisible characters; write text a learner can see"))
    kind_of(question).check(question, add)


def _ids_and_topics(
    topic_ids: Sequence[str] | None, questions: Sequence[tuple[str | None, str | None, bool]], labels: Sequence[str], add: Add
) -> None:
    """Report duplicate ids and unlisted topics.

    `topic_ids`: the listed topics, None when they are not known; `questions`: each question's id and
    topic (None when absent or not text) and whether its topic is known (False: it is not text).
    """
    listed = list(topic_ids or ())
    for i, topic_id in enumerate(listed):
        if topic_id in listed[:i]:
            add(("topics", i, "id"), M_("topics[{i}].id: `{id}` is listed twice", i=i, id=topic_id))
    seen: dict[str, int] = {}
    for i, (qid, topic, topic_known) in enumerate(questions):
        where = labels[i]
        base: FieldPath = ("questions", i)
        if qid is not None:
            if qid in seen:
                add((*base, "id"), M_("{where}.id: duplicate id, first used by questions[{first}]", where=where, first=seen[qid]))
            seen.setdefault(qid, i)
        if not topic_ids or not topic_known:
            continue
        if topic is not None and topic not in topic_ids:
            add((*base, "topic"), M_("{where}.topic: `{topic}` is not in the pack's topics ({topics})", where=where, topic=topic, topics=", ".join(topic_ids)))
        if topic is None:
            add(base, M_("{where}: missing `topic` (this pack lists topics, so every question needs one)", where=where))


def _valid_alone(raw: object, data: dict[str, Any], index: int) -> AnyQuestion | None:
    """Validate one raw question; if only unknown keys stop it, read each as the key it was meant to be."""
    if not isinstance(raw, dict):
        return None
    try:
        return _QUESTION.validate_python(raw)
    except ValidationError as exc:
        errors = exc.errors()
    extra = [e["loc"][-1] for e in errors if e["type"] == "extra_forbidden" and len(e["loc"]) == 2]
    if not extra:
        return None
    fixed = dict(raw)
    for key in extra:
        value = fixed.pop(key)
        meant = did_you_mean(("questions", index, key), data)
        if meant is not None and meant not in fixed:
            fixed[meant] = value
    try:
        return _QUESTION.validate_python(fixed)
    except ValidationError:
        return None


def item_adder(add: Add, base: FieldPath, where: str) -> Add:
    """Let a type module report a problem at a path below its question, named as the loader names it."""

    def item_add(path: FieldPath, message: str) -> None:
        label = where
        previous: str | int | None = None
        for step in path:
            label += f".{step}" if isinstance(step, str) or previous == "answers" else f"[{step}]"
            previous = step
        add((*base, *path), M_("{where}: {problem}", where=label, problem=message))

    return item_add
