import math
import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _log_cosh(r):
    import user_code

    fn = getattr(user_code, "log_cosh", None)
    if not callable(fn):
        return None, "`log_cosh` is not defined: add `log_cosh = LogCosh.apply` after the class."
    try:
        out = fn(r)
    except Exception as exc:
        return None, f"`log_cosh` raised {type(exc).__name__}: {exc}"
    if not isinstance(out, torch.Tensor) or out.shape != r.shape:
        return None, "`log_cosh(r)` must return a tensor of the same shape as `r`."
    return out, None


def _reference_fit(model, x, y, steps, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for _ in range(steps):
        optimizer.zero_grad()
        r = model(x) - y
        loss = (r.abs() + nn.functional.softplus(-2 * r.abs()) - math.log(2)).mean()
        loss.backward()
        optimizer.step()


def _data():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(40, 3, generator=g)
    y = x @ torch.tensor([[2.0], [-1.0], [0.5]]) + 0.3 * torch.randn(40, 1, generator=g)
    y[::7] += 400.0  # outliers: residuals far beyond where cosh overflows
    return x, y


class TestLogCosh(unittest.TestCase):
    def test_small_values(self):
        r = torch.tensor([-2.0, -0.5, 0.0, 0.3, 1.5], dtype=torch.float64)
        out, problem = _log_cosh(r)
        ok = problem is None and torch.allclose(out, torch.log(torch.cosh(r)), atol=1e-10)
        _report(
            self,
            ok,
            "For small residuals the values equal `log(cosh(r))`.",
            problem or "The forward values are wrong: compute `r.abs() + F.softplus(-2 * r.abs()) - math.log(2)`.",
        )

    def test_large_values(self):
        r = torch.tensor([-1000.0, 100.0, 1000.0])
        out, problem = _log_cosh(r)
        ok = problem is None and bool(torch.isfinite(out).all()) and torch.allclose(out, r.abs() - math.log(2), rtol=1e-5)
        _report(
            self,
            ok,
            "Large residuals give finite values close to `|r| − log 2`.",
            problem or "For r = ±1000 the result must be finite (about 999.307). `torch.cosh` overflows there: use the "
            "rewritten formula with `softplus`.",
        )

    def test_fit(self):
        import user_code

        fn = getattr(user_code, "fit", None)
        x, y = _data()
        torch.manual_seed(1)
        model = nn.Linear(3, 1)
        reference = nn.Linear(3, 1)
        reference.load_state_dict(model.state_dict())
        _reference_fit(reference, x, y, 30, 0.5)
        problem = None if callable(fn) else "`fit` is not defined as a function."
        if problem is None:
            try:
                fn(model, x, y, 30, 0.5)
            except Exception as exc:
                problem = f"`fit` raised {type(exc).__name__}: {exc}"
        ok = problem is None and all(
            torch.allclose(a, b, atol=1e-4) for a, b in zip(model.parameters(), reference.parameters())
        )
        _report(
            self,
            ok,
            "`fit` reaches the same weights as SGD on the log-cosh loss, outliers and all.",
            problem or "After 30 SGD steps the weights differ from the reference. Check that `backward` returns "
            "`grad_out * torch.tanh(r)` (the `.mean()` sends 1/N to each element), and that `fit` clears the "
            "gradients, calls `backward()` and steps once per iteration on `log_cosh(model(x) - y).mean()`.",
        )


if __name__ == "__main__":
    unittest.main()
