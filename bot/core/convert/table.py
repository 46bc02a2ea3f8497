"""Read a spreadsheet saved as CSV or TSV: one item per row under a header row.

Columns: type, topic, prompt, answer, options, hint, explanation, difficulty (and an optional id).
Several answers or options go in one cell separated by `|` (write `\\|` for a bar in the text).
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from .draft import Draft, Sink, Unmappable, blanks_fields, choice_fields, number_range, short_fields
from .result import ConvertError
from .text import decode, first_words

COLUMNS = ("type", "topic", "prompt", "answer", "options", "hint", "explanation", "difficulty")
OPTIONAL = ("id",)
REQUIRED = ("type", "prompt", "answer")
_BAR = re.compile(r"(?<!\\)\|")
_NUMBER = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$")
_FENCE = re.compile(r"```[^\n]*\n(.*?)\n?```", re.S)
_BLANK = re.compile(r"\{\{\s*(\d+)\s*\}\}")
_DIFFICULTIES = ("easy", "medium", "hard")

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
    """Split CSV text into rows, each with the line it starts on."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    out: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for row in reader:
            out.append((start, row))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise ConvertError(source, start, f"broken CSV: {exc} (check the quotes in this row)") from exc
    return out


def split(cell: str) -> list[str]:
    return [part.replace("\\|", "|").strip() for part in _BAR.split(cell) if part.strip()]


def read(data: bytes, sink: Sink) -> None:
    """Read every row of a CSV or TSV file into `sink`."""
    text = decode(data, sink.source)
    first = text.split("\n", 1)[0]
    delimiter = "\t" if "\t" in first else ";" if first.count(";") > first.count(",") else ","
    table = rows(text, delimiter, sink.source)
    if not table:
        raise ConvertError(sink.source, 1, "the file is empty; the first row names the columns: " + ",".join(COLUMNS))
    header_line, header = table[0]
    names = [h.strip().lower() for h in header]
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise ConvertError(
            sink.source,
            header_line,
            f"the header row lacks {', '.join(missing)}; it names the columns: " + ",".join(COLUMNS),
        )
    for name in names:
        if name not in COLUMNS and name not in OPTIONAL:
            sink.assume(f"the column `{name}` is not read")
    for line, row in table[1:]:
        if not any(cell.strip() for cell in row):
            continue
        cells = dict(zip(names, row, strict=False))
        label = first_words(cells.get("prompt", "") or ",".join(row))
        kind = cells.get("type", "").strip().lower() or "?"
        if len(row) != len(names):
            sink.skip(line, kind, label, f"the row has {len(row)} columns; the header has {len(names)}")
            continue
        try:
            draft = _row(cells, line, kind, sink)
        except Unmappable as exc:
            sink.skip(line, kind, label, str(exc))
            continue
        sink.add(draft)


def _row(cells: dict[str, str], line: int, kind: str, sink: Sink) -> Draft:
    prompt = cells.get("prompt", "").strip()
    difficulty = cells.get("difficulty", "").strip().lower() or None
    if difficulty is not None and difficulty not in _DIFFICULTIES:
        raise Unmappable(f"difficulty `{difficulty}`: write easy, medium or hard")
    hint, explanation = cells.get("hint"), cells.get("explanation")
    answers = split(cells.get("answer", ""))
    options = split(cells.get("options", ""))
    if kind == "choice":
        for answer in answers:
            if answer not in options:
                raise Unmappable(f"the answer `{answer}` is not one of the options")
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
                accept.append(answer)
        fields = short_fields(prompt, accept, number=number, hint=hint, explanation=explanation, difficulty=difficulty)
    elif kind == "blanks":
        fields = _blanks(prompt, answers, options, (hint, explanation, difficulty), line, sink)
    elif kind == "code":
        raise Unmappable("code items need a unittest file; write them in the pack's YAML")
    else:
        raise Unmappable(f"type `{kind}`: write choice, short or blanks")
    topic = cells.get("topic", "").strip() or None
    name = cells.get("id", "").strip() or None
    return Draft(line, kind, name, fields, topic=topic)


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
        sink.assume("prompts with blanks outside a code block become the template itself", line)
    numbers = sorted({int(n) for n in _BLANK.findall(code)})
    if not numbers:
        raise Unmappable("no {{1}}, {{2}} ... blanks in the prompt")
    if len(answers) != len(numbers):
        raise Unmappable(f"{len(numbers)} blanks but {len(answers)} answers (give one per blank, in order, separated by |)")
    hint, explanation, difficulty = extras
    return blanks_fields(
        text, code, options, dict(zip(numbers, answers, strict=True)), hint=hint, explanation=explanation, difficulty=difficulty
    )
