"""Say what a sandbox run did: one line per test, the error once with the learner's line, the output."""

from __future__ import annotations

import re

from bot.core.coderun import RunOutcome
from bot.core.i18n import N_, _, ngettext, number
from bot.core.replies import Code, Part, Text

from ._text import clip
from .codetext import parses

MAX_TESTS_SHOWN = 10
MAX_OUTPUT_LINES = 15
SYNTAX_ERRORS = ("SyntaxError", "IndentationError", "TabError")

# What the sandbox says (it imports nothing of the bot, so it speaks English), in the learner's language.
_SANDBOX_SAYS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), text)
    for pattern, text in (
        (r"Output limit: (?P<n>\d+) KiB", N_("Output limit: {n} KiB")),
        (r"Time limit: (?P<n>[\d.e+]+) s of wall time", N_("Time limit: {n} s of wall time")),
        (r"Time limit: (?P<n>[\d.e+]+) s of CPU time", N_("Time limit: {n} s of CPU time")),
        (r"Memory limit: (?P<n>\d+) MB", N_("Memory limit: {n} MB")),
        (r"busy, try again in (?P<n>\d+) s", N_("The sandbox is busy; try again in {n} s.")),
        (r"Code too long: (?P<n>\d+) bytes \(limit (?P<limit>\d+)\)\.", N_("Code too long: {n} bytes (limit {limit}).")),
        (r"The code is too long for the sandbox\.", N_("The code is too long for the sandbox.")),
        (r"The code is not valid text\.", N_("The code is not valid text.")),
        (r"The test file is too long\.", N_("The test file is too long.")),
        (r"You already have code running; wait for its result first\.", N_("You already have code running; wait for its result first.")),
        (r"The sandbox could not start this job; please try again\.", N_("The sandbox could not start this job; please try again.")),
        (r"The sandbox is unavailable; please try again later\.", N_("The sandbox is unavailable; please try again later.")),
        (r"The sandbox worker stopped answering; please try again\.", N_("The sandbox worker stopped answering; please try again.")),
    )
)


def sandbox_says(message: str) -> str:
    """The sandbox's message in the learner's language (as it came when it is not one the bot knows)."""
    for pattern, text in _SANDBOX_SAYS:
        found = pattern.fullmatch(message.strip())
        if found is not None:
            return _(text).format(**found.groupdict())
    return message


def is_syntax_error(outcome: RunOutcome, code: str) -> bool:
    """Say whether the code did not even parse (then it is not an answer to grade).

    The run's error alone does not decide it: code that parses and raises SyntaxError itself (or a
    class of its own by that name) ran, and is an answer. The bot compiles the code to know; only
    when the run reported a syntax error, so an answer that runs costs no compile.
    """
    return outcome.error_text.startswith(SYNTAX_ERRORS) and outcome.error_line is not None and not parses(code)


def error_parts(outcome: RunOutcome, code: str | None) -> list[Part]:
    """The error once: its type and message, the line of the learner's code and a caret."""
    where = " " + _("(line {n})").format(n=outcome.error_line) if outcome.error_line else ""
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
        return [Text("⏳ " + (sandbox_says(outcome.message) if outcome.message else _("The sandbox is busy; try again in a few seconds.")))]
    parts: list[Part] = []
    lines: list[str] = []
    if outcome.message and outcome.status not in ("passed", "failed", "error"):
        lines.append(f"⚠️ {sandbox_says(outcome.message)}")
    if lines:
        parts.append(Text("\n".join(lines)))
    if outcome.error_text:
        parts.extend(error_parts(outcome, code))
    if graded and outcome.tests and not (code is not None and is_syntax_error(outcome, code)):
        passed = sum(1 for test in outcome.tests if test[1])
        total = len(outcome.tests)
        test_lines = [
            "**" + ngettext("{passed} of {n} test passed", "{passed} of {n} tests passed", total).format(
                passed=number(passed), n=number(total)
            ) + "**"
        ]
        failing_first = sorted(outcome.tests, key=lambda t: t[1])
        for name, ok, message in failing_first[:MAX_TESTS_SHOWN]:
            said = not message or message == name or (outcome.error_text and outcome.error_text in message)
            detail = "" if ok or said else f" — {clip(message, 200)}"
            test_lines.append(f"{'✅' if ok else '❌'} {clip(name, 200)}{detail}")
        if len(outcome.tests) > MAX_TESTS_SHOWN:
            more = len(outcome.tests) - MAX_TESTS_SHOWN
            test_lines.append("… " + ngettext("and {n} more test", "and {n} more tests", more).format(n=number(more)))
        parts.append(Text("\n".join(test_lines)))
    output = outcome.stdout or ""
    if not graded and outcome.stderr and not outcome.error_text:
        output += "\n" + outcome.stderr
    output = output.strip("\n")
    if output:
        out_lines = output.splitlines()
        parts.append(Code("\n".join(out_lines[:MAX_OUTPUT_LINES]), "text"))
        if len(out_lines) > MAX_OUTPUT_LINES or outcome.truncated:
            shown = min(len(out_lines), MAX_OUTPUT_LINES)
            parts.append(Text(ngettext("_Output cut: showing the first line._", "_Output cut: showing the first {n} lines._", shown).format(n=number(shown))))
    elif not graded and outcome.status == "passed":
        parts.append(Text(_("_(no output)_")))
    parts.append(Text(f"_{number(outcome.wall_ms)} ms · {number(outcome.peak_memory_mb)} MB_"))
    return parts
