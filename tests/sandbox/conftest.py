"""Fixtures of the sandbox tests: one pool for the whole session (see sandbox_support)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from sandbox import SandboxConfig
from tests.sandbox.sandbox_support import SECRET, TEST_LIMITS, Pool

collect_ignore = ["fixtures"]  # unittest modules for the sandbox to run, not for pytest


@pytest.fixture(scope="session")
def pool() -> Iterator[Pool]:
    saved = os.environ.get("DISCORD_TOKEN")
    os.environ["DISCORD_TOKEN"] = SECRET  # a bot secret in the parent's environment
    try:
        p = Pool(SandboxConfig(**TEST_LIMITS))  # type: ignore[arg-type]
    finally:
        if saved is None:
            os.environ.pop("DISCORD_TOKEN", None)
        else:
            os.environ["DISCORD_TOKEN"] = saved
    yield p
    p.close()


@pytest.fixture
def clean_pool(pool: Pool) -> Iterator[Pool]:
    """The shared pool, checked before and after the test for anything left running."""
    pool.assert_clean()
    template = pool.sb.template_pid
    yield pool
    pool.assert_clean()
    assert pool.sb.template_pid == template, "the template was restarted"
