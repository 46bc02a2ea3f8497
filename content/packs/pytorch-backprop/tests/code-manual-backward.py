"""Tests for `code-manual-backward`: each test is renamed to the sentence the learner reads."""

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


def _inputs(n, d, k, m, seed):
    gen = torch.Generator().manual_seed(seed)
    return (
        torch.randn(n, d, generator=gen),
        torch.randn(d, k, generator=gen) * 0.5,
        torch.randn(k, m, generator=gen) * 0.5,
    )


def _autograd(x, w1, w2):
    """The reference: let autograd do the same computation."""
    w1 = w1.clone().requires_grad_(True)
    w2 = w2.clone().requires_grad_(True)
    (torch.tanh(x @ w1) @ w2).sum().backward()
    return w1.grad, w2.grad


def _manual(case, x, w1, w2):
    code, _ = _run_learner_code(case)
    fn = getattr(code, "manual_backward", None)
    if not callable(fn):
        _report(case, False, "", "Define a function `manual_backward(x, w1, w2)`.")
    try:
        result = fn(x, w1, w2)
    except Exception as exc:
        _report(case, False, "", f"`manual_backward` raised {type(exc).__name__}: {exc}")
    if not (isinstance(result, tuple) and len(result) == 2 and all(isinstance(t, torch.Tensor) for t in result)):
        _report(case, False, "", "`manual_backward` must return a pair of tensors: `(grad_w1, grad_w2)`.")
    return result


class TestManualBackward(unittest.TestCase):
    def test_shapes(self):
        x, w1, w2 = _inputs(5, 4, 3, 2, seed=1)
        g1, g2 = _manual(self, x, w1, w2)
        ok = g1.shape == w1.shape and g2.shape == w2.shape
        _report(
            self,
            ok,
            "The gradients have the shapes of `w1` and `w2`.",
            f"`grad_w1` must have shape {tuple(w1.shape)} and `grad_w2` shape {tuple(w2.shape)}; "
            f"got {tuple(g1.shape)} and {tuple(g2.shape)}.",
        )

    def test_grad_w2(self):
        x, w1, w2 = _inputs(5, 4, 3, 2, seed=1)
        _, g2 = _manual(self, x, w1, w2)
        _, want = _autograd(x, w1, w2)
        ok = g2.shape == want.shape and torch.allclose(g2, want, atol=1e-5)
        _report(
            self,
            ok,
            "`grad_w2` matches autograd.",
            "`grad_w2` differs from autograd's: the sum sends a gradient of ones to `a @ w2`, so it is `a.T @ ones`.",
        )

    def test_grad_w1(self):
        x, w1, w2 = _inputs(5, 4, 3, 2, seed=1)
        g1, _ = _manual(self, x, w1, w2)
        want, _ = _autograd(x, w1, w2)
        ok = g1.shape == want.shape and torch.allclose(g1, want, atol=1e-5)
        _report(
            self,
            ok,
            "`grad_w1` matches autograd: the chain rule goes through tanh correctly.",
            "`grad_w1` differs from autograd's: on the way back through `a = tanh(h)` multiply the gradient "
            "element-wise by `1 - a ** 2`, then `grad_w1 = x.T @ grad_h`.",
        )

    def test_other_sizes(self):
        x, w1, w2 = _inputs(7, 2, 5, 3, seed=2)
        g1, g2 = _manual(self, x, w1, w2)
        want1, want2 = _autograd(x, w1, w2)
        ok = g1.shape == want1.shape and g2.shape == want2.shape
        ok = ok and torch.allclose(g1, want1, atol=1e-5) and torch.allclose(g2, want2, atol=1e-5)
        _report(
            self,
            ok,
            "It works for other sizes (n=7, d=2, k=5, m=3).",
            "For n=7, d=2, k=5, m=3 the gradients are wrong: take every size from the arguments' shapes.",
        )

    def test_inputs_unchanged(self):
        x, w1, w2 = _inputs(5, 4, 3, 2, seed=1)
        before = [t.clone() for t in (x, w1, w2)]
        _manual(self, x, w1, w2)
        ok = all(torch.equal(a, b) for a, b in zip(before, (x, w1, w2), strict=True))
        _report(self, ok, "`x`, `w1` and `w2` are left unchanged.", "`manual_backward` changed one of its inputs.")


if __name__ == "__main__":
    unittest.main()
