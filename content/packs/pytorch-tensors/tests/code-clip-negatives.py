"""Tests for `code-clip-negatives`: each test is renamed to the sentence the learner reads."""

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


def _clip(case, x):
    code, _ = _run_learner_code(case)
    fn = getattr(code, "clip_negatives", None)
    if not callable(fn):
        _report(case, False, "", "Define a function `clip_negatives(x)`.")
    try:
        out = fn(x)
    except Exception as exc:
        _report(case, False, "", f"`clip_negatives` raised {type(exc).__name__}: {exc}")
    if not isinstance(out, torch.Tensor):
        _report(case, False, "", f"`clip_negatives` must return a tensor, not {type(out).__name__}.")
    return out


class TestClipNegatives(unittest.TestCase):
    def test_example(self):
        out = _clip(self, torch.tensor([[1.5, -2.0], [-0.5, 3.0]]))
        want = torch.tensor([[1.5, 0.0], [0.0, 3.0]])
        ok = out.shape == want.shape and torch.allclose(out, want)
        _report(
            self,
            ok,
            "Negative entries become 0 and the others are kept.",
            f"For [[1.5, -2.0], [-0.5, 3.0]] the result should be [[1.5, 0.0], [0.0, 3.0]], got {out.tolist()}.",
        )

    def test_any_shape(self):
        x = torch.arange(-12.0, 12.0).reshape(2, 3, 4)
        out = _clip(self, x.clone())
        ok = out.shape == (2, 3, 4) and torch.equal(out, torch.where(x < 0, torch.zeros_like(x), x))
        _report(
            self,
            ok,
            "A 2 × 3 × 4 tensor keeps its shape, with its negatives set to 0.",
            "For a 2 × 3 × 4 input the result has the wrong shape or values: keep the shape, replace only the "
            "negative entries.",
        )

    def test_dtype_kept(self):
        x = torch.tensor([[3, -2], [-7, 5]])
        out = _clip(self, x.clone())
        ok = out.dtype == torch.int64 and out.tolist() == [[3, 0], [0, 5]]
        _report(
            self,
            ok,
            "An integer tensor comes back as integers: the result has the input's dtype.",
            f"For the int64 tensor [[3, -2], [-7, 5]] the result should be the int64 tensor [[3, 0], [0, 5]], got "
            f"{out.dtype} {out.tolist()}: a Python float such as `0.0` in the computation promotes integers to float.",
        )

    def test_input_unchanged(self):
        x = torch.tensor([[1.5, -2.0], [-0.5, 3.0]])
        before = x.clone()
        _clip(self, x)
        ok = torch.equal(x, before)
        _report(
            self,
            ok,
            "The caller's tensor keeps its original values.",
            "`clip_negatives` changed the tensor it was given: `x[mask] = 0` writes into `x` itself. "
            "Work on `x.clone()`, or build a new tensor with `torch.where`.",
        )

    def test_result_is_separate(self):
        x = torch.tensor([2.0, -1.0, 4.0])
        out = _clip(self, x)
        out[0] = 99.0
        ok = x[0].item() == 2.0
        _report(
            self,
            ok,
            "Changing the result does not change the input: they do not share memory.",
            "Writing into the result also changed the input, so the result is the input itself or a view of it: "
            "return a new tensor.",
        )


if __name__ == "__main__":
    unittest.main()
