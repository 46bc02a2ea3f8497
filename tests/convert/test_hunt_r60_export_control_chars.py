"""`pack export --format moodle-xml` of a pack whose text holds a control character.

YAML lets an author write `"\\x0b"` or `"\\e"` in double quotes, and the pack loads; XML 1.0 cannot
hold those characters, and the export wrote them as they are: a file Moodle (and `pack convert`)
refuse as broken XML, with nothing said at export time.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from bot.core.convert import convert_bytes, export_pack
from bot.core.packs import load_bytes

PACK = r"""pack: controls
title: Controls
version: 1
questions:
  - id: q1
    type: choice
    prompt: "Pick \x0bthe first & <best>"
    choices:
      - {text: "one\e[31m", correct: true}
      - {text: "two"}
"""


def test_the_moodle_export_is_well_formed_and_says_what_it_dropped() -> None:
    pack = load_bytes("p.yaml", PACK.encode()).pack
    exported = export_pack(pack, "moodle-xml")
    ET.fromstring(exported.text.encode())  # raises on a character XML cannot hold
    assert any("control characters" in what for what in exported.lost), exported.lost
    back = convert_bytes("back.xml", exported.text.encode())
    assert back.ok, back.report_lines()
    question = back.pack["questions"][0]
    assert question["prompt"] == "Pick the first & <best>"  # the rest of the text kept, escaped and read back
    assert [c["text"] for c in question["choices"]] == ["one[31m", "two"]


def test_a_pack_without_control_characters_loses_nothing() -> None:
    pack = load_bytes("p.yaml", PACK.replace(r"\x0b", "").replace(r"\e", "").encode()).pack
    assert export_pack(pack, "moodle-xml").lost == []
