"""A test file that fails to load said so twice: "The test file could not be loaded: the test file failed to load: ..."."""

from __future__ import annotations

from tests.sandbox.sandbox_support import Pool


def test_a_test_file_that_raises_at_load_says_what_it_raised_once(clean_pool: Pool) -> None:
    r = clean_pool.run("x = 1\n", test="import unittest\nraise RuntimeError('no fixtures here')\n")
    assert r.status == "error"
    assert r.message == "The test file could not be loaded: RuntimeError: no fixtures here", r.message
