"""Read a Red-DiscordBot trivia list: `question: [answers]`, with optional AUTHOR and CONFIG.

The YAML is composed into nodes with the safe loader and never constructed: every answer stays
the text the author wrote (`yes` stays `yes`, `3.10` stays `3.10`), aliases are never expanded,
and each question keeps its line.
"""

from __future__ import annotations

import yaml

from bot.core.i18n import M_

try:  # libyaml composes large lists several times faster; marks and node values are the same
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

from .draft import MAX_ITEMS, Draft, Sink, Unmappable, short_fields
from .result import ConvertError
from .text import decode, first_words


def read(data: bytes, sink: Sink) -> None:
    """Read every question of a Red trivia list into `sink`."""
    text = decode(data, sink.source)
    try:
        _count_questions(text, sink.source)
        root = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise ConvertError(sink.source, line, M_("broken YAML: {detail}", detail=exc.problem or exc.context)) from exc
    except yaml.YAMLError as exc:
        raise ConvertError(sink.source, None, M_("broken YAML: {detail}", detail=exc)) from exc
    if not isinstance(root, yaml.MappingNode):
        line = root.start_mark.line + 1 if root is not None else 1
        raise ConvertError(sink.source, line, M_("a Red trivia list is a mapping of `question: [answers]`"))
    seen: dict[str, int] = {}
    sink.assume(M_("Red accepted an answer found anywhere in a message; QuizBot compares the whole answer"))
    for key, value in root.value:
        line = key.start_mark.line + 1
        question = str(key.value).strip() if isinstance(key, yaml.ScalarNode) else ""
        if question == "AUTHOR" and isinstance(value, yaml.ScalarNode):
            sink.authors.append(str(value.value).strip())
            continue
        if question == "DESCRIPTION" and isinstance(value, yaml.ScalarNode):
            sink.notes.append(str(value.value).strip())
            sink.assume(M_("the list's DESCRIPTION became the pack's description"), line)
            continue
        if question == "CONFIG":
            sink.notes.append("Red trivia settings, kept as a note (QuizBot does not use them): " + _config(value))
            sink.assume(M_("the list's CONFIG is kept as a note in the pack's description"), line)
            continue
        label = first_words(question)
        if not question:
            sink.skip(line, "question", "(not text)", M_("the question is not text"))
            continue
        if question in seen:
            sink.skip(line, "question", label, M_("the same question is already on line {line}", line=seen[question]))
            continue
        seen[question] = line
        try:
            answers = _answers(value)
            sink.add(Draft(line, "question", None, short_fields(question, answers)))
        except Unmappable as exc:
            sink.skip(line, "question", label, exc.args[0])


def _answers(node: yaml.Node) -> list[str]:
    if isinstance(node, yaml.ScalarNode):
        items: list[yaml.Node] = [node]
    elif isinstance(node, yaml.SequenceNode):
        items = list(node.value)
    else:
        raise Unmappable(M_("the answers are not a list"))
    answers = [str(item.value) for item in items if isinstance(item, yaml.ScalarNode) and str(item.value).strip()]
    if len(answers) != len(items):
        raise Unmappable(M_("every answer must be plain text"))
    if not answers:
        raise Unmappable(M_("no answers"))
    return answers


def _config(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode):
        pairs = [
            f"{k.value}: {v.value}"
            for k, v in node.value
            if isinstance(k, yaml.ScalarNode) and isinstance(v, yaml.ScalarNode)
        ]
        return ", ".join(pairs) or "(empty)"
    return str(getattr(node, "value", ""))


def _count_questions(text: str, source: str) -> None:
    """Refuse a list of more than MAX_ITEMS questions from its parse events, before it is composed.

    Composing 5 MB of `q: [a]` lines takes seconds and hundreds of MB; the events cost a tenth of that.
    """
    keys: list[bool | None] = []  # per open collection: None for a sequence, else whether a mapping's next node is a key
    count = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            keys.pop()
            continue
        if not isinstance(event, yaml.NodeEvent):
            continue
        if keys == [True] and not (isinstance(event, yaml.ScalarEvent) and event.value in ("AUTHOR", "CONFIG", "DESCRIPTION")):
            count += 1
            if count > MAX_ITEMS:
                raise ConvertError(
                    source, event.start_mark.line + 1 if event.start_mark is not None else None,
                    M_("the file holds more than {most} items; a pack holds at most {most}: split the file", most=MAX_ITEMS),
                )
        if keys and keys[-1] is not None:
            keys[-1] = not keys[-1]
        if isinstance(event, yaml.MappingStartEvent):
            keys.append(True)
        elif isinstance(event, yaml.SequenceStartEvent):
            keys.append(None)
