import unittest

import torch
from torch.utils.data import TensorDataset


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _dataset():
    return TensorDataset(torch.arange(20))


def _epochs(loader, n):
    return [[batch[0].tolist() for batch in loader] for _ in range(n)]


def _make(seed):
    import user_code

    fn = getattr(user_code, "make_loader", None)
    if not callable(fn):
        return None, "`make_loader` is not defined as a function."
    try:
        return fn(_dataset(), 5, seed), None
    except Exception as exc:
        return None, f"`make_loader` raised {type(exc).__name__}: {exc}"


class TestLoader(unittest.TestCase):
    def test_batches(self):
        loader, problem = _make(0)
        epochs = None
        if problem is None:
            try:
                epochs = _epochs(loader, 1)
            except Exception as exc:
                problem = f"Iterating the loader raised {type(exc).__name__}: {exc}"
        ok = problem is None and [len(b) for b in epochs[0]] == [5] * 4
        ok = ok and sorted(sum(epochs[0], [])) == list(range(20)) and sum(epochs[0], []) != list(range(20))
        _report(
            self,
            ok,
            "The loader yields every sample once per epoch, shuffled, in batches of `batch_size`.",
            problem or "Return `DataLoader(dataset, batch_size=batch_size, shuffle=True, ...)`.",
        )

    def test_same_seed_same_order(self):
        torch.manual_seed(1)
        a, problem = _make(7)
        torch.rand(3)
        b, problem_b = _make(7)
        problem = problem or problem_b
        ok = False
        if problem is None:
            first = _epochs(a, 3)
            torch.rand(11)  # the program draws random numbers between the two runs
            second = _epochs(b, 3)
            ok = first == second
        _report(
            self,
            ok,
            "Two loaders with the same seed give the same batches for three epochs, whatever is drawn in between.",
            problem or "With the same seed the two loaders gave different orders after other random numbers were drawn: "
            "give the loader its own `torch.Generator`, seeded with `seed`, through `generator=`.",
        )

    def test_new_order_each_epoch(self):
        loader, problem = _make(3)
        ok = False
        if problem is None:
            first, second = _epochs(loader, 2)
            ok = first != second
        _report(
            self,
            ok,
            "Each epoch has a new order.",
            problem or "Two epochs of the same loader gave the same order: create the generator once, in `make_loader`, "
            "not anew for every epoch.",
        )

    def test_seed_matters(self):
        a, problem = _make(1)
        b, problem_b = _make(2)
        problem = problem or problem_b
        ok = problem is None and _epochs(a, 1) != _epochs(b, 1)
        _report(
            self,
            ok,
            "Different seeds give different orders.",
            problem or "Seeds 1 and 2 gave the same order: seed the generator with `seed`.",
        )


if __name__ == "__main__":
    unittest.main()
