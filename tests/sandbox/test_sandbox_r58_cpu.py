"""Per-job CPU cuts that must not change what a job gets: seeding, import finders, capabilities, rehearsal."""

from __future__ import annotations

import importlib
import random
import sys
from pathlib import Path
from typing import Any

import numpy
import pytest
import torch

from sandbox import _job, _warm, harness
from sandbox._template import Template, _Worker
from tests.sandbox.sandbox_support import SEED_SOLUTION, SEED_TEST, Pool

RANDOM_JOB = (
    "import random, numpy, torch\n"
    "print(torch.initial_seed(), torch.rand(1).item(), random.random(), numpy.random.rand())\n"
)


def test_each_job_gets_fresh_random_states(clean_pool: Pool) -> None:
    outs = []
    for _ in range(3):
        result = clean_pool.run(RANDOM_JOB)
        assert result.status == "passed", result.message
        outs.append(result.stdout.split())
    for column in zip(*outs, strict=True):
        assert len(set(column)) == 3, outs  # no two jobs share a torch, random or numpy state
    # The template seeds torch with 0; a job's generator was reseeded, not inherited.
    assert all(int(out[0]) != 0 for out in outs)


def test_this_torch_has_only_the_cpu_generator() -> None:
    assert _warm.only_cpu_generator() is True  # the CPU build the sandbox runs


@pytest.fixture
def saved_random_states() -> Any:
    states = (random.getstate(), numpy.random.get_state(), torch.get_rng_state())
    yield
    random.setstate(states[0])
    numpy.random.set_state(states[1])
    torch.set_rng_state(states[2])


def test_reseed_seeds_the_cpu_generator_directly(monkeypatch: pytest.MonkeyPatch, saved_random_states: Any) -> None:
    def refuse(seed: int) -> None:
        raise AssertionError("torch.manual_seed queues a seeding per accelerator it lacks")

    monkeypatch.setattr(_warm, "ONLY_CPU_GENERATOR", True)
    monkeypatch.setattr(torch, "manual_seed", refuse)
    torch.default_generator.manual_seed(0)
    _job._reseed()
    first = torch.initial_seed()
    _job._reseed()
    assert first != 0 and torch.initial_seed() not in (0, first)


def test_reseed_keeps_torchs_own_seeding_when_an_accelerator_may_exist(
    monkeypatch: pytest.MonkeyPatch, saved_random_states: Any
) -> None:
    seeds: list[int] = []
    monkeypatch.setattr(_warm, "ONLY_CPU_GENERATOR", False)
    monkeypatch.setattr(torch, "manual_seed", seeds.append)
    _job._reseed()
    assert len(seeds) == 1


class _Finder:
    def __init__(self) -> None:
        self.invalidated = 0

    def invalidate_caches(self) -> None:
        self.invalidated += 1


def test_refresh_finders_resets_the_job_paths_and_drops_negative_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workdir = str(tmp_path / "work")
    Path(workdir).mkdir()
    Path(workdir, "helper_r58.py").write_text("VALUE = 58\n")
    inside, below, outside = _Finder(), _Finder(), _Finder()
    cache = dict(sys.path_importer_cache)
    cache.update({workdir: None, "relative/dir": outside, f"{workdir}/pkg": below, "/usr/lib/r58": outside})
    monkeypatch.setattr(sys, "path_importer_cache", cache)
    monkeypatch.setattr(sys, "path", [workdir, *sys.path])
    monkeypatch.delitem(sys.modules, "helper_r58", raising=False)
    cache["/dev/shm/r58"] = inside  # a job's writable place
    harness.refresh_finders(workdir)
    assert workdir not in cache and "relative/dir" not in cache  # as importlib.invalidate_caches() does
    assert (inside.invalidated, below.invalidated, outside.invalidated) == (1, 1, 0)
    # The negative entry is gone, so a module the job wrote is found.
    assert importlib.import_module("helper_r58").VALUE == 58


def test_a_job_imports_a_module_it_wrote(clean_pool: Pool) -> None:
    result = clean_pool.run("open('helper_r58.py', 'w').write('X = 5')\nimport helper_r58\nprint(helper_r58.X)\n")
    assert result.status == "passed", result.message
    assert result.stdout == "5\n"


def test_a_job_holds_no_capability_at_all(clean_pool: Pool) -> None:
    result = clean_pool.run(
        "status = open('/proc/self/status').read()\n"
        "for key in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb'):\n"
        "    print(key, status.split(key + ':')[1].split()[0])\n"
    )
    assert result.status == "passed", result.message
    assert result.stdout.split() == [
        word for key in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb") for word in (key, "0" * 16)
    ]


def _template(jobs: list[dict[str, Any] | None], waiting: int = 0) -> Template:
    template = Template.__new__(Template)
    template.workers = [_Worker(i, pid=100 + i, job=job) for i, job in enumerate(jobs)]
    template.waiting = [({"id": str(n)}, None) for n in range(waiting)]
    return template


def test_only_an_idle_pool_prepares_rehearsing_workers() -> None:
    assert _template([None, None, None, None]).idle()
    assert not _template([None, {"id": "a"}, None, None]).idle()  # a job runs
    assert not _template([None, None, None, None], waiting=1).idle()  # a job waits


def test_jobs_pass_whether_or_not_their_learner_rehearsed(clean_pool: Pool) -> None:
    # Back to back and two at a time: workers are prepared both on an idle and on a busy pool.
    results = clean_pool.gather(*[(SEED_SOLUTION, {"test": SEED_TEST})] * 4)
    assert [r.status for r in results] == ["passed"] * 4, [r.message for r in results]
