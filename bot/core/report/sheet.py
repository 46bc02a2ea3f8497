"""CSV an admin opens in a spreadsheet: text that a spreadsheet would run as a formula is kept as text.

The report's and the gradebook's cells carry what learners typed (their wrong answers) and what
pack authors wrote (question ids, options). A spreadsheet reads a cell that begins with `=`, `+`,
`-` or `@` (or a tab or carriage return before one) as a formula, so `=HYPERLINK(...)` typed as an
answer would become a live link, or worse, in the admin's sheet. Such a cell is written with a
leading `'`, which spreadsheets show as text (OWASP's advice for CSV injection). Numbers, negative
ones included, are written as they are.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any, TextIO

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell(value: Any) -> Any:
    """The value as a spreadsheet should show it: text that would start a formula gets a leading `'`."""
    if not isinstance(value, str) or not value.startswith(FORMULA_STARTS):
        return value
    try:
        float(value)
    except ValueError:
        return "'" + value
    return value  # a number such as -0.120


class SheetWriter:
    """`csv.writer` for a spreadsheet: every row's text cells through `cell`."""

    def __init__(self, buffer: TextIO) -> None:
        self._writer = csv.writer(buffer, lineterminator="\n")

    def writerow(self, row: Iterable[Any]) -> None:
        self._writer.writerow([cell(value) for value in row])
