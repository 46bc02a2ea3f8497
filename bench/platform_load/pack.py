"""The benchmark's pack: 19 two-choice items and one code item graded in the sandbox."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CHOICES = 19  # choice items per quiz, plus one code item: 5% of answers are code
SOLUTION = "total = sum(range(1, 11))\nprint(total)\n"


def write_pack(folder: Path) -> None:
    """The benchmark's pack: 19 two-choice items (A is right) and one code item graded in the sandbox."""
    questions: list[dict[str, Any]] = [
        {
            "id": f"c{n:02d}",
            "type": "choice",
            "topic": "bench",
            "difficulty": "easy",
            "prompt": f"Bench question {n}: which is right?",
            "shuffle": False,
            "choices": [{"text": "right", "correct": True}, {"text": "wrong"}],
        }
        for n in range(CHOICES)
    ]
    test = (
        "import unittest\n\n\nclass TestTotal(unittest.TestCase):\n    def test_value(self):\n"
        "        import user_code\n        self.assertEqual(user_code.total, 55)\n"
    )
    questions.append(
        {
            "id": "code",
            "type": "code",
            "topic": "bench",
            "difficulty": "hard",
            "prompt": "Define `total` as the sum of 1 to 10 and print it.",
            "starter": "total = 0\n",
            "test": test,
            "solution": SOLUTION,
        }
    )
    pack = {"pack": "bench", "title": "Bench", "version": 1, "topics": [{"id": "bench", "title": "Bench"}], "questions": questions}
    (folder / "bench").mkdir(parents=True, exist_ok=True)
    (folder / "bench" / "pack.yaml").write_text(json.dumps(pack, indent=1))  # JSON is YAML
