"""Read a Moodle XML question export (`<quiz>`), CodeRunner questions included."""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.core.i18n import M_, N_

from .coderunner import Case, examples, unittest_module
from .draft import (
    Draft,
    Sink,
    Unmappable,
    add_explanation,
    blanks_fields,
    choice_fields,
    code_fields,
    short_fields,
)
from .result import ConvertError
from .text import first_words, html_to_markdown, looks_like_html
from .xmlsafe import Node, parse_xml

_GAP = re.compile(r"\[\[(\d{1,9})\]\]")  # a longer number is text
_FENCE = re.compile(r"```[^\n]*\n(.*?)\n?```", re.S)
_WILDCARD = re.compile(r"(?<!\\)\*")
_DEFAULT_COMBINED = {
    "",
    "Your answer is correct.",
    "Your answer is partially correct.",
    "Your answer is incorrect.",
}
_PYTHON_RUNNERS = {"python3", "python3_w_input"}
_GRADERS = {"EqualityGrader", "NearEqualityGrader"}
_DEF_INPUT = re.compile(r"def\s+input\s*\(")
_PRINT = re.compile(r"\bprint\s*\(")
_NO_COUNTERPART = N_("Moodle's `{kind}` question type has no QuizBot counterpart")


def read(data: bytes, sink: Sink) -> None:
    """Read every question of a Moodle XML export into `sink`."""
    root = parse_xml(data, sink.source)
    if root.tag != "quiz":
        raise ConvertError(sink.source, root.line, M_("the root element is <{tag}>; a Moodle XML export starts with <quiz>", tag=root.tag))
    topic: str | None = None
    for node in root.findall("question"):
        kind = node.attrs.get("type", "")
        if kind == "category":
            topic = _category(node)
            continue
        name = " ".join(node.get("name/text").split()) or None
        idnumber = node.get("idnumber").strip()
        label = name or first_words(_plain(node, "questiontext", sink))
        reader = _READERS.get(kind)
        if kind == "description":
            sink.skip(node.line, kind, label, M_("a description holds no question (Moodle shows it as text between questions)"))
            continue
        if reader is None:
            sink.skip(node.line, kind or "?", label, M_(_NO_COUNTERPART, kind=first_words(kind, 40) or "(none)"))
            continue
        try:
            draft = reader(node, sink)
        except Unmappable as exc:
            sink.skip(node.line, kind, label, exc.args[0])
            continue
        draft.name, draft.topic = idnumber or name, topic
        _common(node, draft, sink)
        sink.add(draft)


def _category(node: Node) -> str | None:
    path = node.get("category/text").strip()
    parts = [p.strip() for p in path.split("/") if p.strip() and not p.strip().startswith("$")]
    if parts and parts[0] == "top":
        parts = parts[1:]
    return parts[-1] if parts else None


def _markdown(node: Node | None, sink: Sink, line: int, default: str = "html") -> str:
    """Return a Moodle text element (`<x format=".."><text>..</text></x>`) as Markdown."""
    if node is None:
        return ""
    text = node.get("text") if node.find("text") is not None else node.text
    fmt = node.attrs.get("format", default)
    if fmt == "html" or (fmt == "moodle_auto_format" and looks_like_html(text)):
        markdown, images = html_to_markdown(text)
        if images:
            sink.assume(M_("images are not carried over; the text names them as [image: ...]"), line)
        return markdown
    return text.strip()


def _plain(node: Node, tag: str, sink: Sink) -> str:
    """Return a text element as Markdown for a label, without noting anything in `sink`."""
    return _markdown(node.find(tag), Sink(sink.source), node.line)


def _fraction(answer: Node) -> float:
    try:
        return float(answer.attrs.get("fraction", "0"))
    except ValueError:
        return 0.0


def _answers(node: Node, sink: Sink) -> list[tuple[str, float, str]]:
    return [
        (
            _markdown(a, sink, node.line, default="moodle_auto_format"),
            _fraction(a),
            _markdown(a.find("feedback"), sink, node.line),
        )
        for a in node.findall("answer")
    ]


def _multichoice(node: Node, sink: Sink) -> Draft:
    prompt = _markdown(node.find("questiontext"), sink, node.line)
    answers = _answers(node, sink)
    single = node.get("single", "true").strip().lower() in ("true", "1")
    shuffle = node.get("shuffleanswers", "true").strip().lower() in ("true", "1")
    if single:
        best = max((f for _, f, _ in answers), default=0.0)
        right = [t for t, f, _ in answers if f == best and f > 0]
        if len(right) > 1:
            raise Unmappable(M_("several answers give full marks in a single-answer question; QuizBot's have one right choice"))
        if any(0 < f < best for _, f, _ in answers):
            sink.assume(M_("answers worth partial credit count as wrong; only the best answer is right"), node.line)
        choices = [(t, f == best and f > 0, fb) for t, f, fb in answers]
    else:
        choices = [(t, f > 0, fb) for t, f, fb in answers]
        sink.assume(M_("multiple-answer questions are all-or-nothing: the learner selects every right choice"), node.line)
    return Draft(node.line, "multichoice", None, choice_fields(prompt, choices, multiple=not single, shuffle=shuffle))


def _truefalse(node: Node, sink: Sink) -> Draft:
    prompt = _markdown(node.find("questiontext"), sink, node.line)
    found = {t.strip().lower(): (f, fb) for t, f, fb in _answers(node, sink)}
    if set(found) != {"true", "false"}:
        raise Unmappable(M_("a true/false question needs the answers `true` and `false`"))
    choices = [(word.title(), found[word][0] > 0, found[word][1]) for word in ("true", "false")]
    return Draft(node.line, "truefalse", None, choice_fields(prompt, choices, multiple=False, shuffle=False))


def _shortanswer(node: Node, sink: Sink) -> Draft:
    prompt = _markdown(node.find("questiontext"), sink, node.line)
    accept: list[str] = []
    wildcards: list[str] = []
    hint = right_feedback = None
    for text, fraction, feedback in _answers(node, sink):
        if text.strip() == "*":
            if feedback:
                hint = feedback
                sink.assume(M_("the feedback for any other answer (`*`) became the hint"), node.line)
            continue
        if fraction >= 100:
            if _WILDCARD.search(text):
                wildcards.append(text)
                continue
            accept.append(text.replace("\\*", "*"))
            right_feedback = right_feedback or feedback or None
        elif fraction > 0:
            sink.assume(M_("answers worth partial credit are not accepted"), node.line)
        elif feedback:
            sink.assume(M_("feedback on particular wrong answers is not carried"), node.line)
    if wildcards:
        if not accept:
            raise Unmappable(M_("its right answer `{answer}` uses the `*` wildcard; QuizBot compares whole answers", answer=wildcards[0]))
        sink.assume(M_("right answers with a `*` wildcard were left out; the plain ones remain"), node.line)
    if node.get("usecase", "0").strip() == "1":
        sink.assume(M_("case-sensitive answers are compared ignoring case"), node.line)
    fields = short_fields(prompt, accept, hint=hint)
    add_explanation(fields, right_feedback)
    return Draft(node.line, "shortanswer", None, fields)


def _numerical(node: Node, sink: Sink) -> Draft:
    prompt = _markdown(node.find("questiontext"), sink, node.line)
    number: tuple[float, float] | None = None
    extra: list[str] = []
    hint = right_feedback = None
    for answer in node.findall("answer"):
        text = answer.get("text").strip()
        feedback = _markdown(answer.find("feedback"), sink, node.line)
        if text in ("*", ""):
            if feedback:
                hint = feedback
                sink.assume(M_("the feedback for any other answer (`*`) became the hint"), node.line)
            continue
        if _fraction(answer) < 100:
            if _fraction(answer) > 0:
                sink.assume(M_("answers worth partial credit are not accepted"), node.line)
            if feedback:
                sink.assume(M_("feedback on particular wrong answers is not carried"), node.line)
            continue
        right_feedback = right_feedback or feedback or None
        try:
            value = float(text)
            tolerance = float(answer.get("tolerance", "0").strip() or "0")
        except ValueError as exc:
            raise Unmappable(M_("`{text}` is not a number", text=text)) from exc
        if number is None:
            number = (value, tolerance)
        else:
            extra.append(text)
            sink.assume(M_("further right numbers are accepted as exact text, without their tolerance"), node.line)
    if number is None:
        raise Unmappable(M_("no answer gives full marks"))
    if any(u.get("unit_name").strip() for u in _children(node, "units", "unit")):
        sink.assume(M_("units are not asked for; the answer is the bare number"), node.line)
    fields = short_fields(prompt, extra, number=number, hint=hint)
    add_explanation(fields, right_feedback)
    return Draft(node.line, "numerical", None, fields)


def _gaps(node: Node, sink: Sink, kind: str, tag: str) -> Draft:
    markdown = _markdown(node.find("questiontext"), sink, node.line)
    choices = [
        (_markdown(c, sink, node.line, default="moodle_auto_format") or c.get("text").strip(), c.get("group", "1").strip())
        for c in node.findall(tag)
    ]
    if len({g for _, g in choices}) > 1:
        sink.assume(M_("groups of choices are merged into one menu shared by every blank"), node.line)
    block = next((m for m in _FENCE.finditer(markdown) if _GAP.search(m.group(1))), None)
    if block is not None:
        template = block.group(1)
        prompt = (markdown[: block.start()] + markdown[block.end() :]).strip()
    else:
        template = markdown
        prompt = ""
    if not prompt:
        prompt = "Choose the right option for each blank."
        sink.assume(M_("gap texts become the blanks' template, under the prompt 'Choose the right option for each blank.'"), node.line)
    numbers: dict[int, int] = {}
    for match in _GAP.finditer(template):
        numbers.setdefault(int(match.group(1)), len(numbers) + 1)
    if not numbers:
        raise Unmappable(M_("the text has no [[n]] gaps"))
    answers: dict[int, str] = {}
    for choice_number, blank in numbers.items():
        if not 1 <= choice_number <= len(choices):
            raise Unmappable(M_("the gap [[{choice_number}]] names no choice (there are {n})", choice_number=choice_number, n=len(choices)))
        answers[blank] = choices[choice_number - 1][0]
    code = _GAP.sub(lambda m: "{{" + str(numbers[int(m.group(1))]) + "}}", template)
    fields = blanks_fields(prompt, code, [t for t, _ in choices], answers)
    return Draft(node.line, kind, None, fields)


def _ddwtos(node: Node, sink: Sink) -> Draft:
    return _gaps(node, sink, "ddwtos", "dragbox")


def _gapselect(node: Node, sink: Sink) -> Draft:
    return _gaps(node, sink, "gapselect", "selectoption")


def _coderunner(node: Node, sink: Sink) -> Draft:
    runner = node.get("coderunnertype").strip()
    if runner not in _PYTHON_RUNNERS:
        raise Unmappable(M_("CodeRunner type `{runner}`: only python3 questions become code items", runner=runner or "(none)"))
    prompt = _markdown(node.find("questiontext"), sink, node.line)
    cases: list[Case] = []
    example_cases: list[Case] = []
    for raw in _children(node, "testcases", "testcase"):
        if raw.attrs.get("testtype", "0") == "1":
            sink.assume(M_("precheck-only test cases are left out"), node.line)
            continue
        case = Case(
            code=raw.get("testcode/text"),
            stdin=raw.get("stdin/text"),
            expected=raw.get("expected/text"),
            # HIDE_IF_FAIL: a learner who fails it never sees it, so the failure must not show its values.
            shown=raw.get("display/text", "SHOW").strip().upper() not in ("HIDE", "HIDE_IF_FAIL"),
        )
        cases.append(case)
        if raw.attrs.get("useasexample") == "1":
            example_cases.append(case)
    if not cases:
        raise Unmappable(M_("no test cases"))
    shown_examples = examples(example_cases)
    if shown_examples:
        prompt = f"{prompt}\n\n{shown_examples}"
    grader = node.get("grader").strip() or "EqualityGrader"
    if grader not in _GRADERS:
        raise Unmappable(M_("CodeRunner grader `{grader}`: only exact and nearly exact output matches are reproduced", grader=grader))
    echo = runner == "python3_w_input"
    template = node.get("template").strip()
    if template:
        if not _echoes_input(template):
            raise Unmappable(M_("a customised CodeRunner template (a test harness of its own) is not reproduced"))
        echo = True
        sink.assume(M_("the customised template's echoing `input()` is reproduced; the rest of it is not carried"), node.line)
    limits: dict[str, float | int] = {}
    try:
        seconds = float(node.get("cputimelimitsecs").strip() or "0")
        memory = int(float(node.get("memlimitmb").strip() or "0"))
    except ValueError:
        seconds, memory = 0.0, 0
    if 0 < seconds <= 60:
        limits["time_s"] = seconds
    if 64 <= memory <= 4096:
        limits["memory_mb"] = memory
    fields = code_fields(
        prompt,
        solution=node.get("answer"),
        starter=node.get("answerpreload"),
        limits=limits or None,
    )
    test = unittest_module(node.get("name/text").strip(), cases, nearly=grader == "NearEqualityGrader", echo_input=echo)
    return Draft(node.line, "coderunner", None, fields, test=test)


def _echoes_input(template: str) -> bool:
    """Return True for a template whose own `input()` prints what it read (python3_w_input's, copied)."""
    body = False
    for line in template.splitlines():
        if _DEF_INPUT.match(line):
            body = True
        elif body and line[:1] in (" ", "\t"):
            if _PRINT.search(line):
                return True
        elif line.strip():
            body = False
    return False


def _common(node: Node, draft: Draft, sink: Sink) -> None:
    """Add what every Moodle question type shares: general feedback, hints, the mark."""
    add_explanation(draft.fields, _markdown(node.find("generalfeedback"), sink, node.line))
    hints = [h for h in (_markdown(h, sink, node.line) for h in node.findall("hint")) if h]
    if hints:
        draft.fields["hint"] = "\n\n".join(hints)
        if len(hints) > 1:
            sink.assume(M_("several hints are shown together as one"), node.line)
    combined = [node.get(f"{k}/text").strip() for k in ("correctfeedback", "partiallycorrectfeedback", "incorrectfeedback")]
    if any(html_to_markdown(c)[0] not in _DEFAULT_COMBINED for c in combined):
        sink.assume(M_("combined feedback (correct / partially correct / incorrect) is not carried"), node.line)
    try:
        grade = float(node.get("defaultgrade", "1").strip() or "1")
    except ValueError:
        grade = 1.0
    if grade != 1.0 and 0 <= grade <= 100:
        draft.fields["points"] = round(grade)
        if not grade.is_integer():
            sink.assume(M_("marks are rounded to whole points"), node.line)
    for tag in _children(node, "tags", "tag"):
        key, _, value = tag.get("text").strip().partition(":")
        if key == "difficulty" and value in ("easy", "medium", "hard"):
            draft.fields["difficulty"] = value
    if node.get("hidden").strip() == "1":
        sink.assume(M_("questions hidden in Moodle are converted too"), node.line)


def _children(node: Node, tag: str, child: str) -> list[Node]:
    holder = node.find(tag)
    return holder.findall(child) if holder is not None else []


_READERS: dict[str, Callable[[Node, Sink], Draft]] = {
    "multichoice": _multichoice,
    "truefalse": _truefalse,
    "shortanswer": _shortanswer,
    "numerical": _numerical,
    "ddwtos": _ddwtos,
    "gapselect": _gapselect,
    "coderunner": _coderunner,
}
