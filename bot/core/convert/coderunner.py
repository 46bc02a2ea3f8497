"""Turn CodeRunner test cases into a unittest module for the sandbox grader.

CodeRunner's python3 template runs the learner's answer followed by each case's test code as one
program, fed the case's standard input, and compares what it prints with the expected output. The
module made here asks the sandbox to do the same (`# sandbox: program`, see sandbox/program.py):
the program runs as `__main__` in the learner's process, one fresh run per case, and only what it
printed comes back. The comparison is CodeRunner's:

- exact match (`EqualityGrader`, the default): trailing white space on each line and trailing
  blank lines are ignored;
- nearly exact (`NearEqualityGrader`): also blank lines, runs of spaces and tabs (one space) and
  letter case.

A run that ends with an exception or a non-zero exit status fails its case (CodeRunner's "run
error"); what the program writes to stderr otherwise is not compared.
"""

from __future__ import annotations

from dataclasses import dataclass

_HEAD = '''"""Tests converted from a CodeRunner question.

Each case runs the answer (the learner's file) as a program, as CodeRunner does: as __main__,
followed by the case's test code, fed the case's standard input. What it prints is compared with
the expected output {how}.
The program runs in the learner's process (see `# sandbox: program`); this module only sees what
it printed.
"""

# sandbox: program
# Question: {name}

import re
import unittest

import user_code

NEARLY = {nearly!r}
ECHO_INPUT = {echo!r}

# (label, test code, standard input, expected output, shown to the learner)
CASES = [
'''

_TAIL = ''']


def _lines(text):
    lines = [line.rstrip() for line in text.replace("\\r\\n", "\\n").split("\\n")]
    if NEARLY:
        lines = [re.sub(r"[ \\t]+", " ", line).lower() for line in lines if line]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _short(text):
    return repr(text if len(text) <= 120 else text[:119] + "...")


def _difference(expected, got):
    """Return where the output first differs from the expected one, or None when they match."""
    want, have = _lines(expected), _lines(got)
    if want == have:
        return None
    if len(want) <= 1 and len(have) <= 1:
        return f"expected {_short(want[0] if want else '')}, got {_short(have[0] if have else '')}"
    for number, (a, b) in enumerate(zip(want, have), 1):
        if a != b:
            return f"line {number}: expected {_short(a)}, got {_short(b)}"
    if len(have) < len(want):
        return f"line {len(have) + 1}: expected {_short(want[len(have)])}, got nothing more"
    return f"line {len(want) + 1}: expected nothing more, got {_short(have[len(want)])}"


def _stopped(run):
    """Return (what stopped the run, the line a learner reads), or None when it ended well."""
    if run["exit"] == 0:
        return None
    if run["signal"]:
        return run["signal"], f"your program was stopped by {run['signal']}"
    lines = [line.strip() for line in run["stderr"].splitlines() if line.strip()]
    found = re.match(r"^([A-Za-z_][\\w.]*(?:Error|Exception|Interrupt|Exit))\\b", lines[-1]) if lines else None
    if found is None:
        return "an error", f"your program exited with status {run['exit']}"
    where = re.findall(r'File "[^"]*user_code\\.py", line (\\d+)', run["stderr"])
    return found.group(1), f"your program stopped with {lines[-1]}" + (f" (line {where[-1]})" if where else "")


class TestCases(unittest.TestCase):
    def _case(self, index):
        label, code, stdin, expected, shown = CASES[index]
        name = f"Test {index + 1}: `{label}`" if shown else f"Hidden test {index + 1}"
        where = f"test case {index + 1}" if shown else f"hidden test case {index + 1}"
        run = user_code.run_program(stdin, code, ECHO_INPUT)
        stopped = _stopped(run)
        if stopped is not None:
            kind, why = stopped
            self._testMethodName = f"{name} stops with {kind}."
            self.fail(f"{where}: {why}" if shown else f"{where}: your program stopped with {kind}")
        difference = _difference(expected, run["stdout"])
        if difference is None:
            self._testMethodName = f"{name} prints the expected output."
            return
        self._testMethodName = f"{name} prints the wrong output."
        if shown:
            self.fail(f"{where}: {difference}")
        self.fail(f"{where}: the output differs from the expected one")


def _make(index):
    def test(self):
        self._case(index)

    return test


for _index in range(len(CASES)):
    setattr(TestCases, f"test_{_index + 1:03d}", _make(_index))
'''


@dataclass(frozen=True)
class Case:
    code: str
    stdin: str
    expected: str
    shown: bool


def _label(case: Case) -> str:
    first = next((line.strip() for line in case.code.splitlines() if line.strip()), "")
    if not first:
        first = "input " + (next((line.strip() for line in case.stdin.splitlines() if line.strip()), "(none)"))
    first = first.replace("`", "'")
    return first if len(first) <= 60 else first[:59] + "…"


def unittest_module(name: str, cases: list[Case], *, nearly: bool = False, echo_input: bool = False) -> str:
    """Return the text of a unittest module that runs `user_code` as a program for each case.

    `nearly` compares as CodeRunner's NearEqualityGrader; `echo_input` prints each line `input()`
    reads, as the python3_w_input question type does.
    """
    rows = "".join(
        f"    ({_label(c)!r}, {c.code!r}, {c.stdin!r}, {c.expected!r}, {c.shown!r}),\n" for c in cases
    )
    one_line = " ".join(name.split()) or "(no name)"
    how = "nearly exactly (blank lines, runs of spaces and letter case aside)" if nearly else (
        "exactly (trailing white space aside)"
    )
    return _HEAD.format(name=one_line, how=how, nearly=nearly, echo=echo_input) + rows + _TAIL


def examples(cases: list[Case], limit: int = 3) -> str:
    """Show the cases marked as examples the way CodeRunner's 'For example' table does, in Markdown."""
    parts: list[str] = []
    for case in cases[:limit]:
        block = f"```python\n{case.code.rstrip()}\n```\n" if case.code.strip() else ""
        given = f"with the input\n```\n{case.stdin.rstrip()}\n```\n" if case.stdin.strip() else ""
        parts.append(f"{block}{given}prints\n```\n{case.expected.rstrip()}\n```")
    return "For example:\n\n" + "\n\n".join(parts) if parts else ""
