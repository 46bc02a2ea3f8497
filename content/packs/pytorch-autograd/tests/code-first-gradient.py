"""Tests for `code-first-gradient`: each test is renamed to the sentence the learner reads."""

import contextlib
import importlib
import io
import re
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


def _numbers(text):
    """Every number written in `text`, as floats (handles 3., 12.0, -1e-3 ...)."""
    return [float(n) for n in re.findall(r"-?\d+\.?\d*(?:[eE][-+]?\d+)?", text)]


class TestFirstGradient(unittest.TestCase):
    def test_x_values(self):
        code, _ = _run_learner_code(self)
        x = getattr(code, "x", None)
        ok = isinstance(x, torch.Tensor) and x.shape == (3,) and torch.allclose(
            x.detach().float(), torch.tensor([1.0, 2.0, 3.0])
        )
        _report(self, ok, "`x` holds [1.0, 2.0, 3.0].", "`x` must be a tensor holding [1.0, 2.0, 3.0].")

    def test_x_tracked(self):
        code, _ = _run_learner_code(self)
        x = getattr(code, "x", None)
        ok = isinstance(x, torch.Tensor) and x.requires_grad and x.is_leaf
        _report(
            self,
            ok,
            "`x` tracks gradients.",
            "`x` must track gradients: create it with `requires_grad=True`.",
        )

    def test_y_scalar_value(self):
        code, _ = _run_learner_code(self)
        y = getattr(code, "y", None)
        ok = isinstance(y, torch.Tensor) and y.dim() == 0 and torch.allclose(y.detach().float(), torch.tensor(36.0))
        _report(
            self,
            ok,
            "`y` is the single number 1 + 8 + 27 = 36.",
            "`y` must be one number, the sum of the cubes of `x` (36): cube with `x ** 3`, then `.sum()`.",
        )

    def test_y_from_x(self):
        code, _ = _run_learner_code(self)
        y = getattr(code, "y", None)
        ok = isinstance(y, torch.Tensor) and y.grad_fn is not None
        _report(
            self,
            ok,
            "`y` was computed from `x`, so autograd can trace it back.",
            "`y` has no recorded history: compute it from the tracked `x` (not from a new tensor or a Python number).",
        )

    def test_gradient(self):
        code, _ = _run_learner_code(self)
        x = getattr(code, "x", None)
        grad = getattr(x, "grad", None)
        # Compare in float64, so a float64 `x` (e.g. from `dtype=torch.float64`) is as right as float32.
        want = torch.tensor([3.0, 12.0, 27.0], dtype=torch.float64)
        ok = (
            isinstance(grad, torch.Tensor)
            and grad.shape == (3,)
            and grad.is_floating_point()
            and torch.allclose(grad.detach().double(), want, atol=1e-4)
        )
        if grad is None:
            failure = "`x.grad` is empty: call `y.backward()` once after computing `y`."
        else:
            failure = f"`x.grad` is {grad}, but d(sum of x**3)/dx = 3x**2 = [3, 12, 27]: call `backward()` exactly once."
        _report(self, ok, "`x.grad` holds 3x² = [3, 12, 27].", failure)

    def test_printed(self):
        _, printed = _run_learner_code(self)
        found = _numbers(printed)
        ok = all(any(abs(n - v) < 1e-4 for n in found) for v in (3.0, 12.0, 27.0))
        _report(
            self,
            ok,
            "The gradient is printed.",
            "Nothing printed shows the gradient [3, 12, 27]: add `print(x.grad)` after `backward()`.",
        )


if __name__ == "__main__":
    unittest.main()
