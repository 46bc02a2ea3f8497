"""Round 58's hunt: the traceback of an exception in a learner's thread.

A plain run (and the learner process of a graded one) prints an uncaught exception's traceback
through the learner's files only, but an exception in a thread went to Python's own hook, which
printed threading's frames with the host's paths (``/root/.pyenv/.../threading.py``) and the job's
folder.
"""

from __future__ import annotations

import textwrap

import pytest

from tests.sandbox.sandbox_support import Pool

CODE = textwrap.dedent(
    """
    import threading

    def boom():
        raise ValueError("in thread")

    def f():
        t = threading.Thread(target=boom, name="worker")
        t.start()
        t.join()
        return 42

    f()
    """
)

TEST = textwrap.dedent(
    """
    import unittest
    import user_code

    class TestAnswer(unittest.TestCase):
        def test_value(self):
            self.assertEqual(user_code.f(), 42)
    """
)


@pytest.mark.parametrize("graded", [False, True], ids=["plain", "graded"])
def test_a_threads_exception_is_printed_through_the_learners_file_only(clean_pool: Pool, graded: bool) -> None:
    r = clean_pool.run(CODE, test=TEST) if graded else clean_pool.run(CODE)
    assert r.status == "passed", r
    assert "Exception in thread worker" in r.stderr, r.stderr
    assert 'File "user_code.py", line 5, in boom' in r.stderr, r.stderr
    assert "ValueError: in thread" in r.stderr, r.stderr
    for leak in ("threading.py", "/root", ".pyenv", "/sandbox/", "/work"):
        assert leak not in r.stderr, r.stderr


WARNS = textwrap.dedent(
    """
    import torch

    def f():
        torch.nn.MSELoss()(torch.zeros(3), torch.zeros(3, 1))
        return 42

    f()
    """
)


@pytest.mark.parametrize("graded", [False, True], ids=["plain", "graded"])
def test_a_warning_from_inside_torch_names_no_host_path(clean_pool: Pool, graded: bool) -> None:
    # nn.MSELoss warns from torch's own file: Python's format named it by the host's path
    # (/work/main/.venv/lib/python3.11/site-packages/torch/nn/modules/loss.py).
    r = clean_pool.run(WARNS, test=TEST) if graded else clean_pool.run(WARNS)
    assert r.status == "passed", r
    assert "torch/nn/modules/loss.py:" in r.stderr and "UserWarning: Using a target size" in r.stderr, r.stderr
    for leak in ("/work", "site-packages", ".venv", "/root"):
        assert leak not in r.stderr, r.stderr


DEL = textwrap.dedent(
    """
    import torch

    class Holder:
        def __del__(self):
            torch.nn.Linear(2, 2)("not a tensor")

    def f():
        Holder()
        return 42

    f()
    """
)


@pytest.mark.parametrize("graded", [False, True], ids=["plain", "graded"])
def test_an_exception_ignored_in_del_names_no_host_path(clean_pool: Pool, graded: bool) -> None:
    r = clean_pool.run(DEL, test=TEST) if graded else clean_pool.run(DEL)
    assert r.status == "passed", r
    assert "Exception ignored in" in r.stderr and 'File "user_code.py", line 6, in __del__' in r.stderr, r.stderr
    assert "TypeError" in r.stderr, r.stderr
    for leak in ("/work", "site-packages", ".venv", "/root", "/sandbox/"):
        assert leak not in r.stderr, r.stderr
