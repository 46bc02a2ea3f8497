"""Tests for `code-build-tensors`: each test is renamed to the sentence the learner reads."""

import contextlib
import importlib
import io
import sys
import traceback
import unittest

import torch


def _report(case, ok, success, failure):
    """Rename the running test to the sentence the learner reads, then pass or fail it."""
    case._testMethodName = success if ok else failure
    if not ok:
        case.fail(failure)


def _run_learner_code(case):
    """Run the learner's file afresh; return the module and everything it printed."""
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            if "user_code" in sys.modules:
                module = importlib.reload(sys.modules["user_code"])
            else:
                import user_code as module
    except Exception as exc:  # report the learner's error and its line, not a traceback into the tests
        line = exc.lineno if isinstance(exc, SyntaxError) else None
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename.endswith("user_code.py"):
                line = frame.lineno
        where = f" on line {line}" if line else ""
        _report(case, False, "", f"Your code stopped with {type(exc).__name__}{where}: {exc}")
    return module, printed.getvalue()


def _tensor(case, name):
    code, _ = _run_learner_code(case)
    value = getattr(code, name, None)
    if not isinstance(value, torch.Tensor):
        _report(case, False, "", f"`{name}` is missing or is not a tensor.")
    return value


class TestBuildTensors(unittest.TestCase):
    def test_grid(self):
        grid = _tensor(self, "grid")
        ok = grid.shape == (3, 4) and grid.dtype == torch.float32 and bool((grid == 0).all())
        _report(
            self,
            ok,
            "`grid` is a 3 × 4 float32 tensor of zeros.",
            f"`grid` has shape {tuple(grid.shape)} and dtype {grid.dtype}; it must be 3 rows × 4 columns "
            "of zeros, float32 (sizes go rows first).",
        )

    def test_ids(self):
        ids = _tensor(self, "ids")
        ok = ids.dtype == torch.int64 and ids.tolist() == list(range(10))
        _report(
            self,
            ok,
            "`ids` holds the integers 0 to 9 as int64.",
            f"`ids` is {ids.tolist()} ({ids.dtype}); it must be 0, 1, ..., 9 as int64 (`arange` excludes its end).",
        )

    def test_eye(self):
        eye = _tensor(self, "eye")
        ok = eye.shape == (3, 3) and eye.dtype == torch.float32 and torch.equal(eye, torch.eye(3))
        _report(
            self,
            ok,
            "`eye` is the 3 × 3 identity matrix.",
            "`eye` must be the 3 × 3 identity: ones on the diagonal, zeros elsewhere, float32.",
        )

    def test_probs(self):
        probs = _tensor(self, "probs")
        ok = probs.dtype == torch.float64 and probs.shape == (3,)
        ok = ok and torch.allclose(probs, torch.tensor([0.2, 0.3, 0.5], dtype=torch.float64))
        _report(
            self,
            ok,
            "`probs` holds [0.2, 0.3, 0.5] in float64.",
            f"`probs` has dtype {probs.dtype}; it must hold [0.2, 0.3, 0.5] with dtype float64 "
            "(pass `dtype=torch.float64`).",
        )

    def test_printed_shape(self):
        _, printed = _run_learner_code(self)
        compact = printed.replace(" ", "")
        ok = "3,4" in compact
        _report(
            self,
            ok,
            "The shape of `grid` is printed.",
            "The printed output does not show the shape (3, 4): print `grid.shape`.",
        )


if __name__ == "__main__":
    unittest.main()
