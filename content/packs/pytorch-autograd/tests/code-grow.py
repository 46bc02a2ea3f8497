"""Tests for `code-grow`: each test is renamed to the sentence the learner reads."""

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


def _grow(case, x, limit):
    """Call the learner's `grow`; any crash or a wrongly shaped result becomes a clear failure."""
    code, _ = _run_learner_code(case)
    grow = getattr(code, "grow", None)
    if not callable(grow):
        _report(case, False, "", "Define a function `grow(x, limit)`.")
    try:
        result = grow(x, limit)
    except Exception as exc:
        _report(case, False, "", f"`grow(x, {limit})` raised {type(exc).__name__}: {exc}")
    if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], torch.Tensor)):
        _report(case, False, "", "`grow` must return a pair: the final tensor and the number of doublings.")
    out, steps = result
    if isinstance(steps, bool) or not isinstance(steps, int):
        _report(
            case,
            False,
            "",
            f"The number of doublings must be a plain Python `int` (count with `steps += 1` from `steps = 0`), "
            f"not {type(steps).__name__} {steps!r}.",
        )
    return out, steps


class TestGrow(unittest.TestCase):
    def test_defined(self):
        code, _ = _run_learner_code(self)
        _report(self, callable(getattr(code, "grow", None)), "`grow` is defined.", "Define a function `grow(x, limit)`.")

    def test_example(self):
        out, steps = _grow(self, torch.tensor([1.0, 2.0]), 20)
        ok = steps == 3 and out.shape == (2,) and torch.allclose(out.detach(), torch.tensor([8.0, 16.0]))
        _report(
            self,
            ok,
            "`grow([1, 2], 20)` doubles 3 times and returns [8, 16].",
            f"`grow([1, 2], 20)` returned {out.detach()} after {steps} doublings; "
            "expected [8, 16] after 3 (the sums go 3, 6, 12, 24).",
        )

    def test_small_limit(self):
        out, steps = _grow(self, torch.tensor([1.0, 2.0]), 5)
        ok = steps == 1 and torch.allclose(out.detach(), torch.tensor([2.0, 4.0]))
        _report(
            self,
            ok,
            "With limit 5 it stops after 1 doubling: the data decides the number of steps.",
            f"`grow([1, 2], 5)` returned {out.detach()} after {steps} doublings; expected [2, 4] after 1. "
            "Loop while the sum is not greater than the limit instead of a fixed number of times.",
        )

    def test_sum_equal_to_limit(self):
        out, steps = _grow(self, torch.tensor([1.0, 2.0]), 12)
        ok = steps == 3 and torch.allclose(out.detach(), torch.tensor([8.0, 16.0]))
        _report(
            self,
            ok,
            "A sum equal to the limit is not greater than it, so `x` is doubled once more.",
            f"`grow([1, 2], 12)` returned {out.detach()} after {steps} doublings; the sums go 3, 6, 12, and 12 "
            "is not greater than 12, so expected [8, 16] after 3. Keep doubling while the sum is `<=` the limit.",
        )

    def test_no_doubling(self):
        out, steps = _grow(self, torch.tensor([5.0, 5.0]), 4)
        ok = steps == 0 and torch.allclose(out.detach(), torch.tensor([5.0, 5.0]))
        _report(
            self,
            ok,
            "When the sum already exceeds the limit, `x` comes back unchanged with 0 doublings.",
            f"`grow([5, 5], 4)` returned {out.detach()} after {steps} doublings; the sum 10 is already above 4, "
            "so expected [5, 5] and 0.",
        )

    def test_gradient_follows_steps(self):
        for limit, steps_expected in ((20, 3), (5, 1), (100, 6)):
            x = torch.tensor([1.0, 2.0], requires_grad=True)
            out, _ = _grow(self, x, limit)
            try:
                out.sum().backward()
            except RuntimeError:
                _report(
                    self,
                    False,
                    "",
                    "The result is not connected to `x`, so `backward()` cannot reach it: "
                    "build it from `x` with `x * 2` (no `.detach()`, `.item()` or `torch.tensor(...)` on the way).",
                )
            want = torch.full((2,), 2.0 ** steps_expected)
            if x.grad is None or not torch.allclose(x.grad, want):
                _report(
                    self,
                    False,
                    "",
                    f"With limit {limit} the gradient of the result's sum should be {2 ** steps_expected} "
                    f"per element (2 ** {steps_expected} doublings), but `x.grad` is {x.grad}.",
                )
        _report(
            self,
            True,
            "The gradient is 2 ** (number of doublings): each call recorded a graph of its own length.",
            "",
        )

    def test_input_untouched(self):
        x = torch.tensor([1.0, 2.0])
        _grow(self, x, 20)
        ok = torch.equal(x, torch.tensor([1.0, 2.0]))
        _report(
            self,
            ok,
            "The caller's tensor is left unchanged.",
            "`grow` changed the tensor it was given: use `x = x * 2`, not an in-place `x *= 2` or `x.mul_(2)`.",
        )


if __name__ == "__main__":
    unittest.main()
