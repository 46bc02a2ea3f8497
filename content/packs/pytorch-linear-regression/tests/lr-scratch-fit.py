import importlib
import io
import sys
import unittest

import torch


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _data():
    x = torch.linspace(-1, 1, 21)
    return x, 3 * x - 0.5


def _reference(x, y, lr, epochs):
    w = torch.zeros((), requires_grad=True)
    b = torch.zeros((), requires_grad=True)
    losses = []
    for _ in range(epochs):
        loss = ((w * x + b - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    return w.detach(), b.detach(), losses


def _fit(*args):
    """Run the learner's fit; return (w, b, losses) and a problem text or None."""
    import user_code

    fit = getattr(user_code, "fit", None)
    if not callable(fit):
        return None, "`fit` is not defined as a function."
    try:
        result = fit(*args)
    except Exception as exc:
        return None, f"`fit` raised {type(exc).__name__}: {exc}"
    if not (isinstance(result, tuple) and len(result) == 3):
        return None, "`fit` must return the tuple `(w, b, losses)`."
    return result, None


class TestFit(unittest.TestCase):
    def test_returns_parameters_that_still_track(self):
        x, y = _data()
        result, problem = _fit(x, y, 0.1, 3)
        ok = problem is None
        if ok:
            w, b, _ = result
            ok = all(isinstance(t, torch.Tensor) and t.is_leaf and t.requires_grad for t in (w, b))
        _report(
            self,
            ok,
            "`w` and `b` are still the leaf tensors you created, with `requires_grad=True`.",
            problem or "`w` and `b` must stay leaf tensors that require gradients: update them in place "
            "(`w -= lr * w.grad`) inside `with torch.no_grad():` rather than writing `w = w - ...`.",
        )

    def test_updates_visible_to_autograd(self):
        x, y = _data()
        result, problem = _fit(x, y, 0.1, 5)
        ok = problem is None
        if ok:
            w, b, _ = result
            ok = isinstance(w, torch.Tensor) and isinstance(b, torch.Tensor) and w._version >= 5 and b._version >= 5
        _report(
            self,
            ok,
            "Each update changes `w` and `b` in place where autograd can see it (their version counters move).",
            problem or "`w` and `b` were not changed in place where autograd can see it: `w = w - ...` makes a new "
            "tensor instead of updating `w`, and an update through `w.data` hides the change from autograd (a graph "
            "that still needed the old values would silently use the new ones). Write `w -= lr * w.grad` (and the "
            "same for `b`) inside `with torch.no_grad():`.",
        )

    def test_one_loss_per_epoch(self):
        x, y = _data()
        result, problem = _fit(x, y, 0.1, 7)
        ok = problem is None and isinstance(result[2], list) and len(result[2]) == 7
        ok = ok and all(isinstance(v, float) for v in result[2])
        _report(
            self,
            ok,
            "`losses` holds one plain float per epoch.",
            problem or "`losses` must be a list with one entry per epoch (7 epochs give 7 entries), "
            "each a Python float from `loss.item()`.",
        )

    def test_first_loss_is_before_any_update(self):
        x, y = _data()
        result, problem = _fit(x, y, 0.1, 2)
        expected = (y**2).mean().item()
        if problem is None and not result[2]:
            problem = "`losses` is empty: append `loss.item()` once every epoch."
        ok = problem is None and abs(float(result[2][0]) - expected) < 1e-4
        _report(
            self,
            ok,
            "The first recorded loss is the loss of the starting point w = 0, b = 0.",
            problem or f"Start from w = 0 and b = 0, and record each epoch's loss before the update: "
            f"the first entry should be mean(y ** 2) = {expected:.4f}.",
        )

    def test_matches_gradient_descent(self):
        x, y = _data()
        result, problem = _fit(x, y, 0.1, 15)
        ok = problem is None
        if ok:
            w_ref, b_ref, losses_ref = _reference(x, y, 0.1, 15)
            w, b, losses = result
            ok = (
                torch.allclose(w.detach(), w_ref, atol=1e-5)
                and torch.allclose(b.detach(), b_ref, atol=1e-5)
                and len(losses) == 15
                and torch.allclose(torch.tensor(losses), torch.tensor(losses_ref), atol=1e-4)
            )
        _report(
            self,
            ok,
            "Each step is exactly one plain gradient-descent step: gradients are zeroed every time.",
            problem or "After 15 epochs `w`, `b` or the losses differ from plain gradient descent. Use the MSE "
            "of `w * x + b`, step by `lr * grad`, and zero `w.grad` and `b.grad` after every update "
            "(otherwise each step adds up all the earlier gradients).",
        )

    def test_prints_the_fit(self):
        import user_code

        buffer = io.StringIO()
        problem = None
        sys.stdout = buffer
        try:
            importlib.reload(user_code)
        except Exception as exc:
            problem = f"Running your file raised {type(exc).__name__}: {exc}"
        finally:
            sys.stdout = sys.__stdout__
        printed = buffer.getvalue()
        ok = problem is None and "w=3.00" in printed and "b=-0.50" in printed
        _report(
            self,
            ok,
            "The script prints the fitted line: w=3.00 b=-0.50.",
            problem or "The last line should print `w=3.00 b=-0.50` once `fit` works "
            f"(it printed {printed.strip()[-60:]!r}).",
        )


if __name__ == "__main__":
    unittest.main()
