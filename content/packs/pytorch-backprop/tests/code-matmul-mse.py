"""Tests for `code-matmul-mse`: each test is renamed to the sentence the learner reads."""

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

X_EXPECTED = torch.tensor([[1.0, 0.0], [2.0, 1.0], [0.0, 3.0]])
TARGET = torch.tensor([[1.0, 2.0]])


def _numbers(text):
    """Every number written in `text`, as floats."""
    return [float(n) for n in re.findall(r"-?\d+\.?\d*(?:[eE][-+]?\d+)?", text)]


def _name(case, code, name):
    value = getattr(code, name, None)
    if not isinstance(value, torch.Tensor):
        _report(case, False, "", f"`{name}` is missing or is not a tensor: define it as the exercise describes.")
    return value


def _expected_grad(W):
    """The gradient of the MSE with respect to a copy of the learner's own starting weights."""
    w = W.detach().clone().requires_grad_(True)
    ((w @ X_EXPECTED - TARGET) ** 2).mean().backward()
    return w.grad


class TestMatmulMSE(unittest.TestCase):
    def test_W_shape(self):
        code, _ = _run_learner_code(self)
        W = _name(self, code, "W")
        _report(
            self,
            W.shape == (1, 3),
            "`W` is a 1 × 3 matrix.",
            f"`W` has shape {tuple(W.shape)}; it must be a 1 × 3 matrix, e.g. `torch.rand(1, 3, ...)`.",
        )

    def test_W_tracks_gradients(self):
        code, _ = _run_learner_code(self)
        W = _name(self, code, "W")
        ok = W.requires_grad and W.is_leaf
        _report(
            self,
            ok,
            "`W` is a leaf tensor that tracks gradients.",
            "`W` must be created with `requires_grad=True` (directly in `torch.rand`, so it stays a leaf).",
        )

    def test_X_values(self):
        code, _ = _run_learner_code(self)
        X = _name(self, code, "X")
        ok = X.shape == (3, 2) and torch.allclose(X.detach().float(), X_EXPECTED)
        _report(
            self,
            ok,
            "`X` holds the 3 × 2 input matrix.",
            "`X` must be the 3 × 2 matrix with rows [1.0, 0.0], [2.0, 1.0] and [0.0, 3.0].",
        )

    def test_Y_is_product(self):
        code, _ = _run_learner_code(self)
        W, Y = _name(self, code, "W"), _name(self, code, "Y")
        ok = Y.shape == (1, 2) and torch.allclose(Y.detach(), W.detach() @ X_EXPECTED, atol=1e-6) and Y.grad_fn is not None
        _report(
            self,
            ok,
            "`Y` is the matrix product `W @ X`, shape 1 × 2.",
            f"`Y` must be the matrix product of `W` and `X` (shape 1 × 2, computed from the tracked `W`); "
            f"got shape {tuple(Y.shape)}.",
        )

    def test_loss_is_mse(self):
        code, _ = _run_learner_code(self)
        W, loss = _name(self, code, "W"), _name(self, code, "loss")
        want = ((W.detach() @ X_EXPECTED - TARGET) ** 2).mean()
        ok = loss.dim() == 0 and torch.allclose(loss.detach(), want, atol=1e-6)
        _report(
            self,
            ok,
            "`loss` is the mean squared error between `Y` and `Y_target`.",
            f"`loss` should be the single number {want.item():.4f}: the mean of the squared differences "
            "`(Y - Y_target) ** 2`.",
        )

    def test_gradient(self):
        code, _ = _run_learner_code(self)
        W = _name(self, code, "W")
        want = _expected_grad(W)
        if W.grad is None:
            _report(self, False, "", "`W.grad` is empty: call `loss.backward()` after computing the loss.")
        ok = torch.allclose(W.grad, want, atol=1e-5)
        _report(
            self,
            ok,
            "`W.grad` holds the gradient of the loss, computed by backpropagation.",
            f"`W.grad` is {W.grad}, but the gradient of the mean squared error is {want}: "
            "call `backward()` once, on the mean (not the sum) of the squared errors.",
        )

    def test_gradient_printed(self):
        code, printed = _run_learner_code(self)
        W = _name(self, code, "W")
        found = _numbers(printed)
        want = _expected_grad(W).flatten().tolist()
        ok = all(any(abs(n - v) < 1e-3 for n in found) for v in want)
        _report(
            self,
            ok,
            "The gradient of `W` is printed.",
            "The printed output does not show the values of `W.grad`: add `print(W.grad)` after `loss.backward()`.",
        )


if __name__ == "__main__":
    unittest.main()
