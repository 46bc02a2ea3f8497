"""Read a spreadsheet saved as CSV or TSV: one item per row under a header row.

Columns: type, topic, prompt, answer, options, hint, explanation, difficulty (and an optional id).
Several answers or options go in one cell separated by `|` (write `\\|` for a bar in the text).
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from bot.core.i18n import M_
from bot.core.report.sheet import FORMULA_STARTS

from .columns import Column, columns, describe, normal, unknown_overrides
from .draft import (
    MAX_ITEMS,
    Draft,
    Sink,
    Unmappable,
    blanks_fields,
    choice_fields,
    number_range,
    short_fields,
    typed_answer,
)
from .result import ConvertError
from .text import decode, first_words

COLUMNS = ("type", "topic", "prompt", "answer", "options", "hint", "explanation", "difficulty")
OPTIONAL = ("id",)
REQUIRED = ("type", "prompt", "answer")
MAX_COLUMNS = 500
_BAR = re.compile(r"(?<!\\)\|")
_NUMBER = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$")
_FENCE = re.compile(r"```[^\n]*\n(.*?)\n?```", re.S)
_BLANK = re.compile(r"\{\{\s*(\d{1,9})\s*\}\}")
_DIFFICULTIES = ("easy", "medium", "hard")
_KEY = re.compile(r"(?:(?:option|choice|answer)\s*)?[A-Ha-h1-9]", re.I)
_LETTERS = re.compile(r"[A-Ha-h](?:\s*[,;&/ ]\s*[A-Ha-h])+")

TEMPLATE_ROWS = [
    list(COLUMNS),
    [
        "choice",
        "Tensors",
        "Which call makes a 2x3 tensor of zeros?",
        "torch.zeros(2, 3)",
        "torch.zeros(2, 3)|torch.zeros([6])|torch.empty(2, 3)",
        "The shape is given as separate sizes.",
        "`torch.zeros(2, 3)` fills a new 2x3 tensor with 0.",
        "easy",
    ],
    [
        "choice",
        "Tensors",
        "Which of these make a float32 tensor?",
        "torch.tensor([1.0])|torch.zeros(1)",
        "torch.tensor([1.0])|torch.zeros(1)|torch.tensor([1])",
        "",
        "Python floats and torch.zeros default to float32; Python ints give int64.",
        "medium",
    ],
    ["short", "Tensors", "What does `torch.tensor([1, 2, 3]).sum().item()` return?", "6", "", "Add them up.", "", "easy"],
    ["short", "Autograd", "What is the derivative of x**2 at x = 1.5?", "3:0.01", "", "2x", "d/dx x**2 = 2x = 3.", "medium"],
    [
        "blanks",
        "Autograd",
        "Complete the code so that `x.grad` is filled.\n```python\nx = torch.ones(2, requires_grad={{1}})\nx.sum().{{2}}()\n```",
        "True|backward",
        "True|False|backward|grad",
        "",
        "",
        "medium",
    ],
]


def template() -> str:
    """Return a CSV template with the header and one example row per item type."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(TEMPLATE_ROWS)
    return buffer.getvalue()


def rows(text: str, delimiter: str, source: str) -> list[tuple[int, list[str]]]:
    """Split CSV text into rows, each with the line it starts on; blank rows are left out.

    At most MAX_ITEMS rows after the header are kept: past that the file is refused at the row's
    line, before a million rows are held in memory. The header may have at most MAX_COLUMNS cells.
    """
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    out: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                if not out and len(row) > MAX_COLUMNS:
                    raise ConvertError(source, start, M_("the header row has {n} columns; a sheet may have at most {most}", n=len(row), most=MAX_COLUMNS))
                if len(out) > MAX_ITEMS:
                    raise ConvertError(
                        source, start, M_("the file holds more than {most} items; a pack holds at most {most}: split the file", most=MAX_ITEMS)
                    )
                out.append((start, row))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise ConvertError(source, start, M_("broken CSV: {detail} (check the quotes in this row)", detail=exc)) from exc
    return out


def split(cell: str) -> list[str]:
    return [part.replace("\\|", "|").strip() for part in _BAR.split(cell) if part.strip()]


def as_typed(cell: str) -> str:
    """The cell as its author typed it: `'=...`, a spreadsheet's way to keep a formula as text, reads `=...`."""
    return cell[1:] if cell.startswith("'") and cell[1:].startswith(FORMULA_STARTS) else cell


def read(data: bytes, sink: Sink) -> None:
    """Read every row of a CSV or TSV file into `sink`; `sink.column_map` overrides the header."""
    text = decode(data, sink.source)
    first = text.split("\n", 1)[0].split("\r", 1)[0]
    delimiter = "\t" if "\t" in first else ";" if first.count(";") > first.count(",") else ","
    table = [(line, [as_typed(cell) for cell in row]) for line, row in rows(text, delimiter, sink.source)]
    if not table:
        raise ConvertError(sink.source, 1, M_("the file is empty; the first row names the columns: {columns}", columns=",".join(COLUMNS)))
    header_line, header = table[0]
    unknown = unknown_overrides(header, sink.column_map)
    if unknown:
        raise ConvertError(
            sink.source, header_line,
            M_("--map names {names}, but the header row has only: {header}", names=", ".join(unknown), header=", ".join(header)),
        )
    found = columns(header, sink.column_map)
    fields = {c.field for c in found}
    lacking = [
        name
        for name, present in (("question", "prompt" in fields), ("answer", bool(fields & {"answer", "option", "options", "wrong"})))
        if not present
    ]
    if lacking:
        raise ConvertError(
            sink.source,
            header_line,
            M_(
                "the header row names no {lacking} column (it reads: {header}); name them as in Question,Answer or "
                "Front,Back or Question,A,B,C,D,Answer, or say which is which with --map COLUMN=FIELD",
                lacking=" and no ".join(lacking), header=", ".join(header),
            ),
        )
    if sink.column_map or any(normal(h) not in (*COLUMNS, *OPTIONAL) for h in header):
        sink.assume(describe(found))
    keyed = keyed_answers([_cells(found, row).get("answer", "") for _, row in table[1:] if _options(found, row)])
    if keyed:
        sink.assume(M_("the answer column gives each right option by its letter or number (A or 1 is the first option)"))
    for line, row in table[1:]:
        if not any(cell.strip() for cell in row):
            continue
        cells = _cells(found, row)
        label = first_words(cells.get("prompt", "") or ",".join(row))
        kind = cells.get("type", "").strip().lower() or ("choice" if _options(found, row) else "short")
        if len(row) != len(header) and not (len(row) > len(header) and all(not c.strip() for c in row[len(header):])):
            sink.skip(line, kind, label, M_("the row has {n} columns; the header has {header}", n=len(row), header=len(header)))
            continue
        try:
            draft = _row(cells, _options(found, row), keyed, line, kind, sink)
        except Unmappable as exc:
            sink.skip(line, kind, label, exc.args[0])
            continue
        sink.add(draft)


def _cells(found: list[Column], row: list[str]) -> dict[str, str]:
    """Return the first non-empty cell of each single-valued field."""
    out: dict[str, str] = {}
    for column, cell in zip(found, row, strict=False):
        if column.field not in ("option", "wrong", "ignore") and not out.get(column.field, "").strip():
            out[column.field] = cell
    return out


def _options(found: list[Column], row: list[str]) -> list[tuple[str, str, bool]]:
    """Return the row's options as (label, text, from a wrong-answer column), empty cells left out."""
    out: list[tuple[str, str, bool]] = []
    for column, cell in zip(found, row, strict=False):
        if column.field in ("option", "wrong") and cell.strip():
            out.append((column.label, cell.strip(), column.field == "wrong"))
    return out


def _row(
    cells: dict[str, str], columns_: list[tuple[str, str, bool]], keyed: bool, line: int, kind: str, sink: Sink
) -> Draft:
    prompt = cells.get("prompt", "").strip()
    difficulty = cells.get("difficulty", "").strip().lower() or None
    if difficulty is not None and difficulty not in _DIFFICULTIES:
        raise Unmappable(M_("difficulty `{difficulty}`: write easy, medium or hard", difficulty=difficulty))
    hint, explanation = cells.get("hint"), cells.get("explanation")
    answers = split(cells.get("answer", ""))
    options = split(cells.get("options", ""))
    if kind == "choice" and columns_:
        choices = _pick(columns_ + [("", o, False) for o in options], answers, keyed, line, sink)
        answers = [text for text, right, _ in choices if right]
        fields = choice_fields(
            prompt, choices, multiple=len(answers) > 1, hint=hint, explanation=explanation, difficulty=difficulty
        )
    elif kind == "choice":
        for answer in answers:
            if answer not in options:
                raise Unmappable(M_("the answer `{answer}` is not one of the options", answer=answer))
        choices = [(option, option in answers, None) for option in options]
        fields = choice_fields(
            prompt, choices, multiple=len(answers) > 1, hint=hint, explanation=explanation, difficulty=difficulty
        )
    elif kind == "short":
        number = None
        accept: list[str] = []
        for answer in answers:
            value = _number(answer)
            if value is not None and number is None:
                number = value
                if ":" not in answer and ".." not in answer:
                    accept.append(answer)
            else:
                accept.append(typed_answer(answer))
        fields = short_fields(prompt, accept, number=number, hint=hint, explanation=explanation, difficulty=difficulty)
    elif kind == "blanks":
        fields = _blanks(prompt, answers, options, (hint, explanation, difficulty), line, sink)
    elif kind == "code":
        raise Unmappable(M_("code items need a unittest file; write them in the pack's YAML"))
    else:
        raise Unmappable(M_("type `{kind}`: write choice, short or blanks", kind=kind))
    topic = cells.get("topic", "").strip() or None
    name = cells.get("id", "").strip() or None
    return Draft(line, kind, name, fields, topic=topic)


def _pick(
    options: list[tuple[str, str, bool]], answers: list[str], keyed: bool, line: int, sink: Sink
) -> list[tuple[str, bool, str | None]]:
    """Mark the right options: an answer is an option's text, or its column letter or number (from 1).

    `keyed`: every answer in the sheet is a letter or a number, so `2` is the second option even
    when another option reads `2`.
    """
    texts = [text for _, text, _ in options]
    right: set[int] = set()
    if len(answers) == 1 and _LETTERS.fullmatch(answers[0]):
        answers = re.findall(r"[A-Ha-h]", answers[0])
    for answer in answers:
        by_text = _by_text(texts, answer)
        by_key = _by_label(options, answer)
        if by_key is None and answer.isdigit() and 1 <= int(answer) <= len(options):
            by_key = int(answer) - 1
        index = (by_key if by_key is not None else by_text) if keyed else (by_text if by_text is not None else by_key)
        if index is not None:
            right.add(index)
        elif any(wrong for _, _, wrong in options):
            options = [("", answer, False), *options]  # the right answer beside its wrong-answer columns
            texts = [text for _, text, _ in options]
            right = {i + 1 for i in right} | {0}
        else:
            raise Unmappable(
                M_("the answer `{answer}` is none of the {n} options, nor an option's letter or number", answer=answer, n=len(options))
            )
    if not answers:
        raise Unmappable(M_("no right answer"))
    return [(text, i in right, None) for i, text in enumerate(texts)]


def _by_text(texts: list[str], answer: str) -> int | None:
    if answer in texts:
        return texts.index(answer)
    lowered = [t.lower() for t in texts]
    return lowered.index(answer.lower()) if answer.lower() in lowered else None


def keyed_answers(cells: list[str]) -> bool:
    """Tell whether every answer given is a letter (A-H), letters, or a number 1-9."""
    given = [c.strip() for c in cells if c.strip()]
    return bool(given) and all(_KEY.fullmatch(c) or _LETTERS.fullmatch(c) for c in given)


def _by_label(options: list[tuple[str, str, bool]], answer: str) -> int | None:
    key = re.sub(r"^(?:option|choice|answer)\s*", "", answer.strip(), flags=re.I).upper()
    labels = [label for label, _, _ in options]
    if key and key in labels:
        return labels.index(key)
    if len(key) == 1 and "A" <= key <= "H" and not any(labels) and ord(key) - ord("A") < len(options):
        return ord(key) - ord("A")
    if len(key) == 1 and "A" <= key <= "H" and all(label.isdigit() for label in labels if label):
        index = ord(key) - ord("A")
        return index if index < len(options) else None
    return None


def _number(answer: str) -> tuple[float, float] | None:
    text = answer.strip()
    if ".." in text:
        low, _, high = text.partition("..")
        if _NUMBER.match(low.strip()) and _NUMBER.match(high.strip()):
            return number_range(low, high)
        return None
    value, _, tolerance = text.partition(":")
    if _NUMBER.match(value.strip()) and (not tolerance or _NUMBER.match(tolerance.strip())):
        return float(value), float(tolerance or 0)
    return None


def _blanks(
    prompt: str,
    answers: list[str],
    options: list[str],
    extras: tuple[str | None, str | None, str | None],
    line: int,
    sink: Sink,
) -> dict[str, Any]:
    block = next((m for m in _FENCE.finditer(prompt) if _BLANK.search(m.group(1))), None)
    if block is not None:
        code = block.group(1)
        text = (prompt[: block.start()] + prompt[block.end() :]).strip()
    else:
        code, text = prompt, "Choose the right option for each blank."
        sink.assume(M_("prompts with blanks outside a code block become the template itself"), line)
    numbers = sorted({int(n) for n in _BLANK.findall(code)})
    if not numbers:
        raise Unmappable(M_("no {first}, {second} ... blanks in the prompt", first="{{1}}", second="{{2}}"))
    if len(answers) != len(numbers):
        raise Unmappable(M_("{n} blanks but {answers} answers (give one per blank, in order, separated by |)", n=len(numbers), answers=len(answers)))
    hint, explanation, difficulty = extras
    return blanks_fields(
        text, code, options, dict(zip(numbers, answers, strict=True)), hint=hint, explanation=explanation, difficulty=difficulty
    )
