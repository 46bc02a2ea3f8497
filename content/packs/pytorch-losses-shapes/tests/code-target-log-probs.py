import unittest

import torch
import torch.nn.functional as F


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _call(logits, targets):
    import user_code

    fn = getattr(user_code, "target_log_probs", None)
    if not callable(fn):
        return None, "`target_log_probs` is not defined as a function."
    try:
        out = fn(logits, targets)
    except Exception as exc:
        return None, f"`target_log_probs` raised {type(exc).__name__}: {exc}"
    if not isinstance(out, torch.Tensor):
        return None, f"`target_log_probs` must return a tensor, not {type(out).__name__}."
    return out, None


def _stable_message(out):
    if out.shape == (2,) and not bool(torch.isfinite(out).all()):
        return (f"For logits [1000, 0, -1000] and target 2 the answer is -2000, got {out.tolist()}: "
                "`log(softmax(x))` underflows to -inf; use `torch.log_softmax`.")
    return f"For logits [1000, 0, -1000] and target 2 the answer is -2000 (and -1.0986 for [0, 0, 0]), got {out.tolist()}."


def _data():
    g = torch.Generator().manual_seed(0)
    return torch.randn(5, 4, generator=g), torch.tensor([3, 0, 2, 2, 1])


class TestTargetLogProbs(unittest.TestCase):
    def test_shape(self):
        logits, targets = _data()
        out, problem = _call(logits, targets)
        ok = problem is None and out.shape == (5,)
        _report(self, ok, "The result has one value per sample: shape (N,).",
                problem or f"Expected shape (5,) for 5 samples, got {tuple(out.shape)}. Pick one entry per row "
                "(`gather(1, targets.unsqueeze(1)).squeeze(1)`), not whole columns.")

    def test_values(self):
        logits, targets = _data()
        out, problem = _call(logits, targets)
        expected = -F.cross_entropy(logits, targets, reduction="none")
        ok = problem is None and out.shape == expected.shape and torch.allclose(out, expected, atol=1e-5)
        _report(self, ok, "Each value is the log-softmax of the row at its target class.",
                problem or "The values do not match `log_softmax(logits, dim=1)` at each row's target class.")

    def test_stable(self):
        logits = torch.tensor([[1000.0, 0.0, -1000.0], [0.0, 0.0, 0.0]])
        targets = torch.tensor([2, 1])
        out, problem = _call(logits, targets)
        ok = problem is None and out.shape == (2,) and bool(torch.isfinite(out).all())
        ok = ok and torch.allclose(out, torch.tensor([-2000.0, -1.0986123]), atol=1e-3)
        _report(self, ok, "Very large logits give finite results (-2000 for a class 2000 below the best).",
                problem or _stable_message(out))

    def test_gradient(self):
        logits, targets = _data()
        logits.requires_grad_(True)
        out, problem = _call(logits, targets)
        ok = False
        if problem is None:
            try:
                out.sum().backward()
                expected = F.one_hot(targets, 4).float() - torch.softmax(logits.detach(), dim=1)
                ok = logits.grad is not None and torch.allclose(logits.grad, expected, atol=1e-5)
            except Exception as exc:
                problem = f"Backpropagating through the result raised {type(exc).__name__}: {exc}"
        _report(self, ok, "Gradients flow back to the logits.",
                problem or "The gradient with respect to the logits is wrong or missing; build the result from "
                "`logits` with differentiable operations (no `.item()`, `.tolist()` or `.detach()`).")


if __name__ == "__main__":
    unittest.main()
