"""Host paths out of what a learner reads: the error, the summary, each test's line, stderr.

A job sees the host's Python and the bot's virtual environment at the host's own paths (mounted
read-only), so Python's texts name them: ``ImportError: cannot import name 'Linearr' from 'torch'
(/work/.../site-packages/torch/__init__.py)``. Each such prefix (an import path, Python's prefixes,
the repository) is cut from those texts, leaving the path from it: ``torch/__init__.py``.
The job's printed output (stdout) is the learner's own and kept as it is.

Those texts quote the learner's exception text (its message, an exception class's name, a value a
test put in its message), so they also lose what would reorder or restyle the line around them
where it is shown: bidi overrides, embeddings, isolates and marks (U+202E flips the rest of a test's
line) and control characters (a terminal escape) but line breaks and tabs.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import sys
from pathlib import Path

from .result import Result, TestOutcome


@functools.cache
def host_roots() -> tuple[str, ...]:
    """Return the host's directories a job's texts may name, the longest first."""
    found = {sys.prefix, sys.base_prefix, sys.exec_prefix, str(Path(__file__).resolve().parents[1])}
    found.update(p for p in sys.path if isinstance(p, str) and os.path.isabs(p) and os.path.isdir(p))
    roots = {r.rstrip("/") for r in found}
    return tuple(sorted((r for r in roots if r.count("/") >= 2), key=len, reverse=True))


def scrub(text: str) -> str:
    """Return ``text`` with each host directory's prefix (``/work/.../site-packages/``) cut."""
    if "/" not in text:
        return text
    for root in host_roots():
        if root in text:
            text = text.replace(root + "/", "")
    return text


_UNSHOWN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def shown(text: str) -> str:
    """Return ``text`` without bidi controls and control characters (line breaks and tabs stay)."""
    return _UNSHOWN.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def scrub_result(result: Result) -> Result:
    """Return ``result`` with the host's paths cut from everything but the job's stdout, and what it
    shows of the learner's texts (not the output) without bidi controls and control characters."""
    error = result.error
    if error is not None:  # its source line is the learner's own code, kept as written
        error = dataclasses.replace(error, type=shown(error.type), message=shown(scrub(error.message)))
    tests = tuple(TestOutcome(shown(scrub(t.name)), t.passed, shown(scrub(t.message))) for t in result.tests)
    return dataclasses.replace(
        result, tests=tests, error=error, stderr=scrub(result.stderr), message=shown(scrub(result.message))
    )
