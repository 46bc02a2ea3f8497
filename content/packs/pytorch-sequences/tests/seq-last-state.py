import unittest

import torch


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _call(out, lengths):
    import user_code

    fn = getattr(user_code, "last_state", None)
    if not callable(fn):
        return None, "`last_state` is not defined as a function."
    try:
        return fn(out, lengths), None
    except Exception as exc:
        return None, f"`last_state` raised {type(exc).__name__}: {exc}"


def _expected(out, lengths):
    return torch.stack([out[i, n - 1] for i, n in enumerate(lengths.tolist())])


class TestLastState(unittest.TestCase):
    def test_shape(self):
        out = torch.randn(4, 6, 3)
        got, problem = _call(out, torch.tensor([6, 2, 4, 1]))
        ok = problem is None and isinstance(got, torch.Tensor) and got.shape == (4, 3)
        _report(
            self,
            ok,
            "`last_state` returns one vector per sequence: shape `(N, H)`.",
            problem or f"For `out` of shape (4, 6, 3) the result must have shape (4, 3), not "
            f"{tuple(got.shape) if isinstance(got, torch.Tensor) else got!r}.",
        )

    def test_values(self):
        torch.manual_seed(0)
        out = torch.randn(5, 7, 4)
        lengths = torch.tensor([3, 7, 1, 5, 2])
        got, problem = _call(out, lengths)
        ok = problem is None and isinstance(got, torch.Tensor) and got.shape == (5, 4)
        ok = ok and torch.equal(got, _expected(out, lengths))
        _report(
            self,
            ok,
            "Each row is the output at that sequence's last real step (`length - 1`).",
            problem or "Row i must be `out[i, lengths[i] - 1]`: the last real step, not the last padded one (index "
            "`-1`) and not one past the end (index `lengths[i]`).",
        )

    def test_gradient_flows(self):
        out = torch.randn(3, 4, 2, requires_grad=True)
        got, problem = _call(out, torch.tensor([2, 4, 1]))
        ok = False
        if problem is None and isinstance(got, torch.Tensor) and got.requires_grad:
            got.sum().backward()
            picked = (out.grad.abs().sum(dim=2) > 0).tolist()
            ok = picked == [[False, True, False, False], [False, False, False, True], [True, False, False, False]]
        _report(
            self,
            ok,
            "Gradients reach exactly the picked time steps.",
            problem or "The result must be computed from `out` with tensor indexing (no `.detach()`, `.tolist()` or new "
            "tensors), so that a loss on it trains the RNN through the picked steps only.",
        )


if __name__ == "__main__":
    unittest.main()
