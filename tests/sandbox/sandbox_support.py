"""Helpers of the sandbox tests: the shared pool's driver, fixtures' texts, containment checks.

Starting a pool costs a few seconds (the template imports torch), so the suite starts one with
short limits and every test submits to it. ``pool.assert_clean()`` checks that nothing a job
started is left running: the slot cgroups are empty and the template has only its prepared
workers below it.
"""

from __future__ import annotations

import asyncio
import os
import textwrap
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest

from sandbox import Result, Sandbox, SandboxConfig

FIXTURES = Path(__file__).parent / "fixtures"
SEED_TEST = (FIXTURES / "seed_style_test.py").read_text()
SEED_SOLUTION = (FIXTURES / "seed_style_solution.py").read_text()
SEED_WRONG = (FIXTURES / "seed_style_wrong.py").read_text()
SECRET = "canary-secret-7f3a"  # put in the bot's environment; must never reach a job

# Runs beside hostile jobs: it must always pass with exactly this output.
BYSTANDER = """
import time, torch
time.sleep(0.3)
w = torch.ones(3, requires_grad=True)
(w * 14).sum().backward()
print("bystander ok", int(w.grad.sum().item()))
"""
BYSTANDER_OUT = "bystander ok 42\n"

# Trains a zeroed two-class linear model with the learner's ``train_epoch`` and checks it learnt:
# the test that attacks on write-back (a learner's forward or hook on the grader's model) target.
LEARNS_TEST = textwrap.dedent(
    """
    import unittest
    import torch
    from torch import nn

    class TestLearns(unittest.TestCase):
        def test_learns(self):
            import user_code
            x = torch.cat([torch.full((20, 2), 2.0), torch.full((20, 2), -2.0)])
            y = torch.cat([torch.zeros(20, dtype=torch.long), torch.ones(20, dtype=torch.long)])
            model = nn.Linear(2, 2)
            nn.init.zeros_(model.weight)
            nn.init.zeros_(model.bias)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for _ in range(3):
                user_code.train_epoch(model, x, y, optimizer)
            accuracy = (model(x).argmax(1) == y).float().mean().item()
            self.assertGreaterEqual(accuracy, 0.95)
    """
)


def not_passed(r: Result) -> None:
    """Assert a hostile submission came back failed or error, with not every test passed."""
    assert r.status in ("failed", "error"), (r.status, r.message, r.tests)
    assert not (r.tests and all(t.passed for t in r.tests)), r.tests


TEST_LIMITS = {"wall_s": 2.0, "cpu_s": 2.0, "memory_mb": 256, "workers": 2, "queue": 2}


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            out.append(int(entry))
    return out


def _tree(pid: int) -> dict[int, list[int]]:
    tree = {pid: _children(pid)}
    for child in tree[pid]:
        tree.update(_tree(child))
    return tree


class Pool:
    """A started sandbox plus a loop thread to drive it from synchronous tests."""

    def __init__(self, config: SandboxConfig) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="sandbox-test-loop", daemon=True)
        self.thread.start()
        self.sb: Sandbox = self.call(self._make(config), timeout=180)

    @staticmethod
    async def _make(config: SandboxConfig) -> Sandbox:
        sb = Sandbox(config)
        await sb.start()
        return sb

    def call(self, coro: Coroutine[Any, Any, Any], timeout: float = 90) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def run(self, code: str, **kwargs: Any) -> Result:
        return self.call(self.sb.run(code, **kwargs))

    def run_with_bystander(self, code: str, **kwargs: Any) -> tuple[Result, Result]:
        async def both() -> tuple[Result, Result]:
            a, b = await asyncio.gather(self.sb.run(code, **kwargs), self.sb.run(BYSTANDER))
            return a, b

        return self.call(both())

    def gather(self, *jobs: tuple[str, dict[str, Any]]) -> list[Result]:
        async def all_of() -> list[Result]:
            return list(await asyncio.gather(*(self.sb.run(code, **kw) for code, kw in jobs)))

        return self.call(all_of())

    def close(self) -> None:
        try:
            self.call(self.sb.close(), timeout=60)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.loop.close()

    # --- containment checks -------------------------------------------------------------------
    def leftovers(self) -> list[str]:
        """Describe anything a job left behind (empty when all is clean)."""
        problems: list[str] = []
        prepared: set[str] = set()  # the idle job processes of the prepared workers
        tpid = self.sb.template_pid
        if tpid is not None:
            tree = _tree(tpid)
            for sup in tree[tpid]:  # each supervisor holds at most its prepared grader and learner
                kids = tree.get(sup, [])
                prepared |= {str(kid) for kid in kids}
                if len(kids) > 2:
                    problems.append(f"supervisor {sup} has {len(kids)} children")
                for kid in kids:
                    if tree.get(kid):
                        problems.append(f"job process {kid} has children {tree[kid]}")
        cgroups = self.sb._cgroups
        if cgroups is not None:
            # A worker's cgroup holds its two prepared job processes (they join when it is
            # prepared) and nothing else.
            for i, slot in enumerate(cgroups.slots):
                for procs in slot.procs:
                    pids = Path(procs).read_text().split()
                    strangers = [pid for pid in pids if pid not in prepared]
                    if strangers or len(pids) > 2:
                        problems.append(f"slot {i} cgroup holds {pids}")
        return problems

    def assert_clean(self, timeout: float = 5.0) -> None:
        """Wait (briefly) until nothing a job started is running; fail if something stays."""
        deadline = time.monotonic() + timeout
        while True:
            problems = self.leftovers()
            if not problems:
                return
            if time.monotonic() > deadline:
                pytest.fail("left running after the job: " + "; ".join(problems))
            time.sleep(0.05)
