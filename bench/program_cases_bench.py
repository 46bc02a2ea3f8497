"""Time CodeRunner-style program tests in the sandbox: what each test case adds to a graded job.

Each case is a fresh fork of the learner process running the program as `__main__`. The script
starts one pool, then runs a 1-case and an N-case test of the same program in turn (A B A B ...),
and prints the median job wall time of each and the cost per extra case. Not a test: figures depend
on the machine and its load.

    .venv/bin/python bench/program_cases_bench.py [--cases 20] [--rounds 7]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics

from bot.core.convert.coderunner import Case, unittest_module
from sandbox import Sandbox, SandboxConfig

PROGRAM = "a, b = map(int, input().split())\nprint(a + b)\n"


def test_of(cases: int) -> str:
    return unittest_module("Add", [Case("", f"{n} {n}\n", f"{2 * n}\n", True) for n in range(cases)])


async def main(cases: int, rounds: int) -> None:
    sandbox = Sandbox(SandboxConfig(workers=1, wall_s=30.0, cpu_s=30.0))
    await sandbox.start()
    try:
        one, many = test_of(1), test_of(cases)
        times: dict[int, list[int]] = {1: [], cases: []}
        for _ in range(rounds + 1):  # the first round warms up and is not counted
            for count, test in ((1, one), (cases, many)):
                result = await sandbox.run(PROGRAM, test=test)
                assert result.status == "passed", result
                times[count].append(result.wall_ms)
        first, more = statistics.median(times[1][1:]), statistics.median(times[cases][1:])
        print(f"load average {os.getloadavg()[0]:.2f}; {rounds} rounds")
        print(f"1 case: median {first:.0f} ms; {cases} cases: median {more:.0f} ms")
        print(f"each further case: {(more - first) / (cases - 1):.1f} ms")
    finally:
        await sandbox.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    asyncio.run(main(args.cases, args.rounds))
