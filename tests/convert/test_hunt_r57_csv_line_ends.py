"""A sheet saved with carriage returns alone between rows (Excel for Mac's "CSV (Macintosh)") converts.

Telling the format split the first row at `\\n` only, handed the whole file to the CSV module as one
row, and the command died with a traceback (`new-line character seen in unquoted field`).
"""

from __future__ import annotations

import pytest

from bot.core.convert import convert_bytes


@pytest.mark.parametrize("end", ["\r", "\r\n", "\n"])
@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
def test_rows_ended_by_any_line_end_convert(end: str, delimiter: str) -> None:
    rows = [["prompt", "answer"], ["Say six", "6"], ["Capital of France?", "Paris"]]
    data = ("\ufeff" + end.join(delimiter.join(row) for row in rows) + end).encode()
    for fmt in (None, "csv"):
        conversion = convert_bytes("sheet.csv", data, fmt=fmt, pack_id="sheet", title="Sheet")
        assert conversion.loaded is not None, conversion.report_lines()
        assert [(q.prompt, q.accept) for q in conversion.loaded.pack.questions] == [  # type: ignore[union-attr]
            ("Say six", ["6"]),
            ("Capital of France?", ["Paris"]),
        ]
