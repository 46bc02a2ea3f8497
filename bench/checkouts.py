"""One measure run with several checkouts' code in turn, A, B, A, B: each block a child process with that checkout on its path.

Used by the benchmarks that take `--bot-root A,B` and a hidden `--child` flag (the child runs the
measure and prints its figures as one JSON line, last): `measured` is their shared main.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
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


def measured(
    script: str,
    doc: str,
    learners: int,
    measure: Callable[[int], Awaitable[Any]],
    line: Callable[[Any], str],
    summary: Callable[[list[Any]], str],
    what: str = "",
) -> None:
    """A benchmark's main: as the child, print the measure's figures; else run the blocks in turn, print
    each block's `line`, then each checkout's `summary` of its blocks under one heading (`what`: of what)."""
    args = arguments(doc, learners)
    if args.child:
        print(json.dumps(asyncio.run(measure(args.learners))))
        return
    runs: dict[Path, list[Any]] = {r: [] for r in args.roots}
    for block, root, got in alternating(script, args.roots, args.blocks, ["--learners", str(args.learners)]):
        runs[root].append(got)
        print(f"block {block}, {root}: {line(got)}", flush=True)
    print(f"\n{args.learners} learners, load average {os.getloadavg()[0]:.2f}; medians of {args.blocks} blocks{what}:")
    for root, blocks in runs.items():
        print(f"  {root}: {summary(blocks)}")
