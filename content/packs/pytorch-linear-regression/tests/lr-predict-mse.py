import unittest

import torch


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _call(name, *args):
    """Call user_code.<name>(*args); return (value, problem text or None)."""
    import user_code

    fn = getattr(user_code, name, None)
    if not callable(fn):
        return None, f"`{name}` is not defined as a function."
    try:
        return fn(*args), None
    except Exception as exc:  # the learner's code raised: say what, not where in the grader
        return None, f"`{name}` raised {type(exc).__name__}: {exc}"


class TestPredictAndMse(unittest.TestCase):
    def test_predict_values(self):
        x = torch.tensor([0.0, 1.0, 2.0, -1.0])
        out, problem = _call("predict", x, torch.tensor(2.0), torch.tensor(1.0))
        ok = problem is None and isinstance(out, torch.Tensor) and out.shape == (4,)
        ok = ok and torch.allclose(out, torch.tensor([1.0, 3.0, 5.0, -1.0]), atol=1e-6)
        _report(
            self,
            ok,
            "`predict` returns w * x + b for every sample.",
            problem or "`predict(x, w, b)` must return a tensor shaped like `x` holding `w * x + b` "
            "(for x = [0, 1, 2, -1], w = 2, b = 1 that is [1, 3, 5, -1]).",
        )

    def test_predict_is_tracked(self):
        w = torch.tensor(0.5, requires_grad=True)
        b = torch.tensor(0.0, requires_grad=True)
        out, problem = _call("predict", torch.tensor([1.0, 2.0]), w, b)
        ok = problem is None and isinstance(out, torch.Tensor) and out.requires_grad
        _report(
            self,
            ok,
            "`predict` keeps autograd tracking when `w` and `b` require gradients.",
            problem or "When `w` requires gradients, `predict` must return a tensor that is still tracked "
            "(compute with tensor operations; do not use `.item()`, `.detach()` or `torch.no_grad()` here).",
        )

    def test_mse_is_scalar(self):
        out, problem = _call("mse", torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 1.0, 1.0]))
        ok = problem is None and isinstance(out, torch.Tensor) and out.dim() == 0
        _report(
            self,
            ok,
            "`mse` returns a single-number (0-dimensional) tensor.",
            problem or "`mse` must return a 0-dimensional tensor (one number), ready for `.backward()`: "
            "reduce the squared errors with `.mean()`.",
        )

    def test_mse_value(self):
        out, problem = _call("mse", torch.tensor([1.0, 2.0, 3.0, 5.0]), torch.tensor([1.0, 1.0, 1.0, 1.0]))
        ok = problem is None and isinstance(out, torch.Tensor) and out.numel() == 1
        ok = ok and torch.allclose(out.reshape(()), torch.tensor(5.25), atol=1e-5)
        _report(
            self,
            ok,
            "`mse` averages the squared differences.",
            problem or "`mse([1, 2, 3, 5], [1, 1, 1, 1])` must be (0 + 1 + 4 + 16) / 4 = 5.25: "
            "square the differences, then take the mean (not the sum, not the absolute value).",
        )

    def test_mse_gradient(self):
        pred = torch.tensor([2.0, 0.0], requires_grad=True)
        out, problem = _call("mse", pred, torch.tensor([1.0, 1.0]))
        ok = problem is None and isinstance(out, torch.Tensor) and out.requires_grad
        if ok:
            out.reshape(()).backward()
            ok = pred.grad is not None and torch.allclose(pred.grad, torch.tensor([1.0, -1.0]), atol=1e-5)
        _report(
            self,
            ok,
            "Gradients flow through `mse` (d loss / d pred = 2 * (pred - target) / N).",
            problem or "`mse` must stay differentiable: with pred = [2, 0] and target = [1, 1], "
            "backward() should give pred.grad = [1, -1]. Build it from tensor operations only.",
        )


if __name__ == "__main__":
    unittest.main()
