"""Tests for `code-accumulate`: each test is renamed to the sentence the learner reads."""

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


def _data():
    """Six rows of three features, split into chunks of 3, 1 and 2 rows."""
    gen = torch.Generator().manual_seed(7)
    x = torch.randn(6, 3, generator=gen)
    y = torch.randn(6, generator=gen)
    w = torch.randn(3, generator=gen)
    chunks = [(x[:3], y[:3]), (x[3:4], y[3:4]), (x[4:], y[4:])]
    return x, y, w, chunks


def _full_batch_gradient(x, y, w):
    w = w.detach().clone().requires_grad_(True)
    ((x @ w - y) ** 2).mean().backward()
    return w.grad


def _accumulate(case, w, chunks):
    code, _ = _run_learner_code(case)
    accumulate = getattr(code, "accumulate", None)
    if not callable(accumulate):
        _report(case, False, "", "Define a function `accumulate(w, chunks)`.")
    try:
        return accumulate(w, chunks)
    except Exception as exc:
        _report(case, False, "", f"`accumulate(w, chunks)` raised {type(exc).__name__}: {exc}")


class TestAccumulate(unittest.TestCase):
    def test_defined(self):
        code, _ = _run_learner_code(self)
        ok = callable(getattr(code, "accumulate", None))
        _report(self, ok, "`accumulate` is defined.", "Define a function `accumulate(w, chunks)`.")

    def test_returns_grad(self):
        _, _, start, chunks = _data()
        w = start.clone().requires_grad_(True)
        result = _accumulate(self, w, chunks)
        ok = isinstance(result, torch.Tensor) and result.shape == w.shape and w.grad is not None
        ok = ok and torch.allclose(result, w.grad)
        _report(
            self,
            ok,
            "`accumulate` returns `w.grad`, a tensor shaped like `w`.",
            "`accumulate` must leave the gradient in `w.grad` and return it (a tensor of the same shape as `w`).",
        )

    def test_single_chunk(self):
        x, y, start, _ = _data()
        w = start.clone().requires_grad_(True)
        result = _accumulate(self, w, [(x, y)])
        want = _full_batch_gradient(x, y, start)
        ok = isinstance(result, torch.Tensor) and torch.allclose(result, want, atol=1e-5)
        _report(
            self,
            ok,
            "With a single chunk the result is the gradient of the mean squared error.",
            f"With the whole batch as one chunk the gradient should be {want}, got {result}: "
            "check the loss `((x @ w - y) ** 2)` averaged over the rows.",
        )

    def test_uneven_chunks(self):
        x, y, start, chunks = _data()
        w = start.clone().requires_grad_(True)
        result = _accumulate(self, w, chunks)
        want = _full_batch_gradient(x, y, start)
        ok = isinstance(result, torch.Tensor) and torch.allclose(result, want, atol=1e-5)
        _report(
            self,
            ok,
            "Chunks of 3, 1 and 2 rows add up to exactly the full-batch gradient.",
            f"For chunks of 3, 1 and 2 rows the gradient should be {want} (the full batch's), got {result}. "
            "Keep every chunk's contribution (do not clear `w.grad` inside the loop) and divide by the total "
            "number of rows, not each chunk's own size.",
        )

    def test_stale_gradient_cleared(self):
        _, _, start, chunks = _data()
        fresh = start.clone().requires_grad_(True)
        clean = _accumulate(self, fresh, chunks)
        w = start.clone().requires_grad_(True)
        w.grad = torch.full_like(w, 100.0)
        result = _accumulate(self, w, chunks)
        ok = isinstance(result, torch.Tensor) and isinstance(clean, torch.Tensor)
        ok = ok and torch.allclose(result, clean, atol=1e-5)
        _report(
            self,
            ok,
            "An old gradient left in `w.grad` does not leak into the result.",
            f"When `w.grad` arrived holding 100s from earlier work, the result was {result} instead of {clean}: "
            "clear the gradient once, before the loop.",
        )

    def test_one_backward_per_chunk(self):
        _, _, start, chunks = _data()
        w = start.clone().requires_grad_(True)
        passes = []
        w.register_hook(lambda grad: passes.append(1))
        _accumulate(self, w, chunks)
        ok = len(passes) == len(chunks)
        _report(
            self,
            ok,
            "`backward()` ran once per chunk, and the gradients accumulated.",
            f"Backpropagation reached `w` {len(passes)} time(s) for {len(chunks)} chunks: "
            "call `backward()` on each chunk's loss inside the loop.",
        )

    def test_w_unchanged(self):
        _, _, start, chunks = _data()
        w = start.clone().requires_grad_(True)
        _accumulate(self, w, chunks)
        ok = torch.equal(w.detach(), start)
        _report(self, ok, "`w` itself is left unchanged.", "`accumulate` changed the values of `w`: only its gradient should change.")


if __name__ == "__main__":
    unittest.main()
