"""Tests for `code-normalize-rows`: each test is renamed to the sentence the learner reads."""

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


def _normalize(case, m):
    code, _ = _run_learner_code(case)
    fn = getattr(code, "normalize_rows", None)
    if not callable(fn):
        _report(case, False, "", "Define a function `normalize_rows(m)`.")
    try:
        out = fn(m)
    except Exception as exc:
        _report(case, False, "", f"`normalize_rows` raised {type(exc).__name__} for a {tuple(m.shape)} input: {exc}")
    if not isinstance(out, torch.Tensor):
        _report(case, False, "", f"`normalize_rows` must return a tensor, not {type(out).__name__}.")
    return out


class TestNormalizeRows(unittest.TestCase):
    def test_example(self):
        out = _normalize(self, torch.tensor([[1.0, 3.0], [2.0, 2.0]]))
        want = torch.tensor([[0.25, 0.75], [0.5, 0.5]])
        ok = out.shape == want.shape and torch.allclose(out, want, atol=1e-6)
        _report(
            self,
            ok,
            "[[1, 3], [2, 2]] becomes [[0.25, 0.75], [0.5, 0.5]].",
            f"For [[1, 3], [2, 2]] the result should be [[0.25, 0.75], [0.5, 0.5]], got {out.tolist()}: "
            "each element must be divided by the sum of its own row.",
        )

    def test_square_rows_sum_to_one(self):
        m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [1.0, 1.0, 8.0]])
        out = _normalize(self, m)
        ok = out.shape == (3, 3) and torch.allclose(out.sum(dim=1), torch.ones(3), atol=1e-6)
        ok = ok and torch.allclose(out * m.sum(dim=1, keepdim=True), m, atol=1e-5)
        _report(
            self,
            ok,
            "Every row of a 3 × 3 matrix sums to 1.",
            f"For a 3 × 3 input the row sums are {[round(v, 3) for v in out.sum(dim=1).tolist()]}, not all 1. A `(rows,)` tensor of sums "
            "lines up with the columns when broadcast; keep the summed dimension (`keepdim=True`).",
        )

    def test_non_square(self):
        m = torch.arange(1.0, 9.0).reshape(2, 4)
        out = _normalize(self, m)
        ok = out.shape == (2, 4) and torch.allclose(out, m / m.sum(dim=1, keepdim=True), atol=1e-6)
        _report(
            self,
            ok,
            "A 2 × 4 matrix works too.",
            "For a 2 × 4 input the result is wrong: the row sums must have shape (2, 1) to broadcast across "
            "the 4 columns.",
        )

    def test_many_rows(self):
        gen = torch.Generator().manual_seed(3)
        m = torch.rand(50, 7, generator=gen) + 0.1
        out = _normalize(self, m)
        ok = out.shape == (50, 7) and torch.allclose(out.sum(dim=1), torch.ones(50), atol=1e-5)
        _report(
            self,
            ok,
            "A 50 × 7 matrix comes back with every row summing to 1.",
            "For a 50 × 7 input the rows do not all sum to 1 (or the shape changed).",
        )

    def test_input_unchanged(self):
        m = torch.tensor([[1.0, 3.0], [2.0, 2.0]])
        before = m.clone()
        _normalize(self, m)
        ok = torch.equal(m, before)
        _report(
            self,
            ok,
            "The input matrix is left unchanged.",
            "`normalize_rows` changed its input: return a new tensor instead of dividing in place (`/=`, `div_`).",
        )


if __name__ == "__main__":
    unittest.main()
