"""Time `convert_bytes` on large inputs: an Open Trivia DB response and a Moodle XML export.

Most of the time goes to checking the converted pack with the pack loader (the same reading that
`quizbot pack import` and `/quiz pack load` do). Not a test: figures depend on the machine.

    .venv/bin/python bench/convert_bench.py [--items 500 5000]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from bot.core.convert import convert_bytes

MOODLE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "import" / "moodle-pytorch-basics-20261130-1412.xml"


def opentdb(items: int) -> bytes:
    results = [
        {
            "type": "multiple",
            "difficulty": "medium",
            "category": f"Category {i % 20}",
            "question": f"Question {i}: what is {i} + {i}?",
            "correct_answer": str(2 * i),
            "incorrect_answers": [str(2 * i + 1), str(2 * i + 2), str(2 * i + 3)],
        }
        for i in range(items)
    ]
    return json.dumps({"response_code": 0, "results": results}).encode()


def moodle(copies: int) -> bytes:
    text = MOODLE.read_bytes()
    marker = b"<!-- question: 1201  -->"
    head, _, rest = text.partition(marker)
    body, _, _ = rest.rpartition(b"</quiz>")
    return head + (marker + body) * copies + b"</quiz>\n"


def timed(name: str, data: bytes) -> None:
    started = time.perf_counter()
    conversion = convert_bytes(name, data)
    seconds = time.perf_counter() - started
    print(
        f"{name}: {len(data) / 1024:.0f} KiB, {len(conversion.converted)} items converted, "
        f"{len(conversion.not_converted)} not: {seconds:.2f} s ({seconds / max(len(conversion.converted), 1) * 1000:.1f} ms/item)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, nargs="+", default=[500, 5000])
    args = parser.parse_args()
    for items in args.items:
        timed(f"opentdb-{items}.json", opentdb(items))
    timed("moodle-x60.xml", moodle(60))


if __name__ == "__main__":
    main()
