"""One measure run with several checkouts' code in turn, A, B, A, B: each block a child process with that checkout on its path.

Used by the benchmarks that take `--bot-root A,B` and a hidden `--child` flag (the child runs the
measure and prints its figures as one JSON line, last).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def arguments(doc: str, learners: int) -> argparse.Namespace:
    """The flags these benchmarks share; `roots` is `--bot-root` as paths."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=learners)
    parser.add_argument("--blocks", type=int, default=3, help="blocks per checkout, alternating")
    parser.add_argument("--bot-root", default=".", help="checkouts to compare, comma-separated")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.roots = [Path(r).resolve() for r in args.bot_root.split(",")]
    return args


def alternating(script: str, roots: list[Path], blocks: int, child_args: list[str]) -> Iterator[tuple[int, Path, Any]]:
    """Yield (block, checkout, the child's figures) for each block and checkout, in turn."""
    for block in range(blocks):
        for root in roots:
            out = subprocess.run(
                [sys.executable, str(Path(script).resolve()), "--child", *child_args],
                env={**os.environ, "PYTHONPATH": str(root)}, cwd=root, capture_output=True, text=True, check=True,
            ).stdout  # fmt: skip
            yield block + 1, root, json.loads(out.strip().splitlines()[-1])
