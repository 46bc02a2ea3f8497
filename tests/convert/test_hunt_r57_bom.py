"""A test or solution file saved as "UTF-8 with BOM" (Windows editors) is read as Python reads it.

Python runs such a file; the pack's compile check called its first character a syntax error
(`invalid non-printable character U+FEFF`).
"""

from __future__ import annotations

from pathlib import Path

from bot.core.packs import load_path

PACK = """\
pack: bom
title: BOM
version: 1
questions:
  - id: add
    type: code
    prompt: Write add(a, b)
    test_file: tests/add.py
    solution_file: solutions/add.py
"""
TEST = "import unittest\nimport user_code\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(user_code.add(2, 3), 5)\n"
SOLUTION = "def add(a, b):\r\n    return a + b\r\n"


def test_files_with_a_byte_order_mark_load_without_it(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "solutions").mkdir()
    (tmp_path / "pack.yaml").write_bytes(b"\xef\xbb\xbf" + PACK.encode())
    (tmp_path / "tests" / "add.py").write_bytes(b"\xef\xbb\xbf" + TEST.encode())
    (tmp_path / "solutions" / "add.py").write_bytes(b"\xef\xbb\xbf" + SOLUTION.encode())
    question = load_path(tmp_path).pack.questions[0]
    assert question.test == TEST  # type: ignore[union-attr]
    assert question.solution == SOLUTION  # type: ignore[union-attr]
