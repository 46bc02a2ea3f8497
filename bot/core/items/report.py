"""Say what a sandbox run did: one line per test, the error once with the learner's line, the output."""

from __future__ import annotations

from bot.core.coderun import RunOutcome
from bot.core.replies import Code, Part, Text

from ._text import clip, plural

MAX_TESTS_SHOWN = 10
MAX_OUTPUT_LINES = 15
SYNTAX_ERRORS = ("SyntaxError", "IndentationError", "TabError")


def is_syntax_error(outcome: RunOutcome) -> bool:
    """Say whether the code did not even parse (then it is not an answer to grade)."""
    return outcome.error_text.startswith(SYNTAX_ERRORS) and outcome.error_line is not None


def error_parts(outcome: RunOutcome, code: str | None) -> list[Part]:
    """The error once: its type and message, the line of the learner's code and a caret."""
    where = f" (line {outcome.error_line})" if outcome.error_line else ""
    parts: list[Part] = [Text(f"💥 {outcome.error_text}{where}")]
    lines = code.splitlines() if code else []
    if outcome.error_line and 0 < outcome.error_line <= len(lines):
        source = lines[outcome.error_line - 1].rstrip()
        stripped = source.lstrip()
        shown = f"{outcome.error_line} | {stripped}"
        caret = ""
        if outcome.error_col is not None and outcome.error_col > 0:
            offset = max(outcome.error_col - 1 - (len(source) - len(stripped)), 0)
            caret = "\n" + " " * (len(f"{outcome.error_line} | ") + min(offset, len(stripped))) + "^"
        parts.append(Code(shown + caret, "text"))
    return parts


def failing_sentences(outcome: RunOutcome) -> str:
    """The failing tests' sentences, one a line, as stored for the item analysis; else what stopped the run."""
    failing = [clip(" ".join(name.split()), 200) for name, ok, _ in outcome.tests if not ok]
    if failing:
        return "\n".join(failing[:MAX_TESTS_SHOWN])
    if outcome.status == "passed":
        return ""
    if outcome.error_text:
        return clip(outcome.error_text.splitlines()[0], 200)
    return clip(outcome.message or outcome.status, 200)


def run_report(outcome: RunOutcome, *, graded: bool, code: str | None = None) -> list[Part]:
    """Summarise a sandbox result for the learner."""
    if outcome.status == "rejected":
        return [Text(f"⏳ {outcome.message or 'The sandbox is busy; try again in a few seconds.'}")]
    parts: list[Part] = []
    lines: list[str] = []
    if outcome.message and outcome.status not in ("passed", "failed", "error"):
        lines.append(f"⚠️ {outcome.message}")
    if lines:
        parts.append(Text("\n".join(lines)))
    if outcome.error_text:
        parts.extend(error_parts(outcome, code))
    if graded and outcome.tests and not is_syntax_error(outcome):
        passed = sum(1 for _, ok, _ in outcome.tests if ok)
        test_lines = [f"**{passed} of {plural(len(outcome.tests), 'test')} passed**"]
        failing_first = sorted(outcome.tests, key=lambda t: t[1])
        for name, ok, message in failing_first[:MAX_TESTS_SHOWN]:
            said = not message or message == name or (outcome.error_text and outcome.error_text in message)
            detail = "" if ok or said else f" — {clip(message, 200)}"
            test_lines.append(f"{'✅' if ok else '❌'} {clip(name, 200)}{detail}")
        if len(outcome.tests) > MAX_TESTS_SHOWN:
            test_lines.append(f"… and {plural(len(outcome.tests) - MAX_TESTS_SHOWN, 'more test')}")
        parts.append(Text("\n".join(test_lines)))
    output = outcome.stdout or ""
    if not graded and outcome.stderr and not outcome.error_text:
        output += "\n" + outcome.stderr
    output = output.strip("\n")
    if output:
        out_lines = output.splitlines()
        parts.append(Code("\n".join(out_lines[:MAX_OUTPUT_LINES]), "text"))
        if len(out_lines) > MAX_OUTPUT_LINES or outcome.truncated:
            parts.append(Text(f"_Output cut: showing the first {min(len(out_lines), MAX_OUTPUT_LINES)} lines._"))
    elif not graded and outcome.status == "passed":
        parts.append(Text("_(no output)_"))
    parts.append(Text(f"_{outcome.wall_ms} ms · {outcome.peak_memory_mb:.0f} MB_"))
    return parts
