import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _make(seed):
    import user_code

    fn = getattr(user_code, "make_model", None)
    if not callable(fn):
        return None, "`make_model` is not defined as a function."
    try:
        model = fn(seed)
    except Exception as exc:
        return None, f"`make_model` raised {type(exc).__name__}: {exc}"
    shapes = [tuple(p.shape) for p in model.parameters()] if isinstance(model, nn.Module) else None
    if shapes != [(8, 4), (8,), (2, 8), (2,)]:
        return None, "`make_model` must return `nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))`."
    return model, None


def _same(a, b):
    return all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


class TestModel(unittest.TestCase):
    def test_same_seed(self):
        torch.manual_seed(10)
        a, problem = _make(5)
        torch.manual_seed(20)
        b, problem_b = _make(5)
        problem = problem or problem_b
        ok = problem is None and _same(a, b)
        _report(
            self,
            ok,
            "The same seed gives the same initial weights, whatever the caller's generator state.",
            problem or "Two models built with seed 5 differ: seed with `torch.manual_seed(seed)` before building the layers.",
        )

    def test_different_seeds(self):
        a, problem = _make(1)
        b, problem_b = _make(2)
        problem = problem or problem_b
        ok = problem is None and not _same(a, b)
        _report(
            self,
            ok,
            "Different seeds give different weights.",
            problem or "Seeds 1 and 2 gave the same weights: use the `seed` argument.",
        )

    def test_caller_stream_untouched(self):
        torch.manual_seed(123)
        torch.rand(2)
        expected = torch.rand(3)
        torch.manual_seed(123)
        torch.rand(2)
        _, problem = _make(9)
        ok = problem is None and torch.equal(torch.rand(3), expected)
        _report(
            self,
            ok,
            "The caller's next random numbers are the same as if `make_model` had not run.",
            problem or "After `make_model`, the caller's `torch.rand` gave other numbers: seed inside "
            "`with torch.random.fork_rng():`, which restores the generator's state when the block ends.",
        )


if __name__ == "__main__":
    unittest.main()
