import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


LABELS = torch.tensor([1, 3, 0, 3])


def _call(labels, num_classes, eps):
    import user_code

    fn = getattr(user_code, "smooth_targets", None)
    if not callable(fn):
        return None, "`smooth_targets` is not defined as a function."
    try:
        out = fn(labels, num_classes, eps)
    except Exception as exc:
        return None, f"`smooth_targets` raised {type(exc).__name__}: {exc}"
    if not isinstance(out, torch.Tensor):
        return None, f"`smooth_targets` must return a tensor, not {type(out).__name__}."
    return out, None


class TestSmoothTargets(unittest.TestCase):
    def test_shape_dtype(self):
        out, problem = _call(LABELS, 5, 0.1)
        ok = problem is None and out.shape == (4, 5) and out.dtype == torch.float32
        _report(self, ok, "The result is a float32 tensor of shape (N, num_classes).",
                problem or f"Expected shape (4, 5) and dtype float32, got {tuple(out.shape)} and {out.dtype}.")

    def test_values(self):
        out, problem = _call(LABELS, 5, 0.1)
        expected = torch.full((4, 5), 0.02)
        expected[torch.arange(4), LABELS] = 0.92
        ok = problem is None and out.shape == (4, 5) and torch.allclose(out.float(), expected, atol=1e-6)
        _report(self, ok, "With eps 0.1 and 5 classes, the true class holds 0.92 and every other entry 0.02.",
                problem or "Every entry should be eps / num_classes = 0.02 and the true class's entry "
                f"1 - eps + eps / num_classes = 0.92; got {[[round(v, 3) for v in row] for row in out.tolist()]}.")

    def test_rows_sum_to_one(self):
        out, problem = _call(LABELS, 6, 0.3)
        ok = problem is None and out.shape == (4, 6) and torch.allclose(out.float().sum(dim=1), torch.ones(4), atol=1e-6)
        _report(self, ok, "Each row sums to 1.",
                problem or f"Each row must be a probability distribution; the row sums are {[round(v, 3) for v in out.float().sum(dim=1).tolist()]}.")

    def test_matches_label_smoothing(self):
        g = torch.Generator().manual_seed(0)
        logits = torch.randn(4, 5, generator=g)
        out, problem = _call(LABELS, 5, 0.2)
        ok = False
        if problem is None:
            try:
                mine = nn.CrossEntropyLoss()(logits, out)
                ok = torch.allclose(mine, nn.CrossEntropyLoss(label_smoothing=0.2)(logits, LABELS), atol=1e-6)
            except Exception as exc:
                problem = f"`nn.CrossEntropyLoss()(logits, targets)` raised {type(exc).__name__}: {exc}"
        _report(self, ok, "Cross-entropy with these targets equals `CrossEntropyLoss(label_smoothing=eps)`.",
                problem or "The loss with your targets differs from PyTorch's built-in label smoothing; check the "
                "values of the true and the other classes.")

    def test_eps_zero_is_one_hot(self):
        out, problem = _call(torch.tensor([2, 0]), 3, 0.0)
        ok = problem is None and torch.equal(out, torch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]))
        _report(self, ok, "With eps 0 the targets are exactly one-hot.",
                problem or f"With eps = 0, labels [2, 0] and 3 classes give [[0, 0, 1], [1, 0, 0]]; got {out.tolist()}.")


if __name__ == "__main__":
    unittest.main()
