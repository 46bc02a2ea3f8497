"""A pack saved as UTF-16 (Windows Notepad's "Unicode") is named as such, with what to do.

It was "not UTF-8 text (byte 0, line 1)" with a byte-order mark and, without one, "the character
U+0000 is not allowed in YAML; remove it", though every other byte is a NUL.
"""

from __future__ import annotations

import pytest

from bot.core import PackInvalid
from bot.core.packs import load_bytes, load_path

GOOD = "pack: wide\ntitle: Wide\nversion: 1\nquestions:\n  - id: one\n    type: short\n    prompt: Say six\n    accept: ['6']\n"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_pack_is_named_as_such(encoding: str) -> None:
    with pytest.raises(PackInvalid) as caught:
        load_bytes("p.yaml", GOOD.encode(encoding))
    assert [str(p) for p in caught.value.problems] == ["p.yaml:1:1: the file is UTF-16 text; save it as UTF-8"]


def test_a_utf16_test_file_is_named_as_such(tmp_path) -> None:
    text = GOOD.replace("type: short\n    prompt: Say six\n    accept: ['6']\n", "type: code\n    prompt: W\n    test_file: t.py\n    solution: 'x = 1'\n")
    (tmp_path / "pack.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "t.py").write_bytes("import user_code\n".encode("utf-16"))
    with pytest.raises(PackInvalid) as caught:
        load_path(tmp_path)
    assert [p.message for p in caught.value.problems] == ["questions[0] (id `one`).test_file: `t.py` is UTF-16 text; save it as UTF-8"]
