import unittest

import torch
from torch.utils.data import DataLoader, TensorDataset


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _features():
    torch.manual_seed(0)
    return torch.randn(10, 3) * 4 + torch.tensor([1.0, -2.0, 0.5])


def _mean(loader):
    """Call user_code.dataset_mean; return (value, problem text or None)."""
    import user_code

    fn = getattr(user_code, "dataset_mean", None)
    if not callable(fn):
        return None, "`dataset_mean` is not defined as a function."
    try:
        value = fn(loader)
    except Exception as exc:
        return None, f"`dataset_mean` raised {type(exc).__name__}: {exc}"
    if not isinstance(value, torch.Tensor):
        return None, "`dataset_mean` must return a tensor."
    return value, None


class TestDatasetMean(unittest.TestCase):
    def test_shape(self):
        x = _features()
        value, problem = _mean(DataLoader(TensorDataset(x, torch.zeros(10)), batch_size=5))
        ok = problem is None and value.shape == (3,)
        _report(
            self,
            ok,
            "`dataset_mean` returns one mean per feature, shape (3,).",
            problem or "For samples with 3 features the result must have shape (3,): average over the sample "
            "dimension only (`dim=0`).",
        )

    def test_equal_batches(self):
        x = _features()
        value, problem = _mean(DataLoader(TensorDataset(x, torch.zeros(10)), batch_size=5))
        ok = problem is None and value.shape == (3,) and torch.allclose(value, x.mean(dim=0), atol=1e-5)
        _report(
            self,
            ok,
            "With equal batches the result matches the mean of all samples.",
            problem or "With two batches of 5, `dataset_mean` must equal `x.mean(dim=0)` over all 10 samples.",
        )

    def test_partial_last_batch(self):
        x = _features()
        value, problem = _mean(DataLoader(TensorDataset(x, torch.zeros(10)), batch_size=4))
        ok = problem is None and value.shape == (3,) and torch.allclose(value, x.mean(dim=0), atol=1e-5)
        _report(
            self,
            ok,
            "The last, smaller batch counts once per sample, not as a whole batch.",
            problem or "With `batch_size=4` the batches hold 4, 4 and 2 samples, and the mean of the three batch "
            "means over-weights the last 2 samples. Add up the sums of all batches and divide by the number of "
            "samples seen.",
        )

    def test_order_does_not_matter(self):
        x = _features()
        loader = DataLoader(
            TensorDataset(x, torch.zeros(10)), batch_size=3, shuffle=True, generator=torch.Generator().manual_seed(4)
        )
        value, problem = _mean(loader)
        ok = problem is None and value.shape == (3,) and torch.allclose(value, x.mean(dim=0), atol=1e-5)
        _report(
            self,
            ok,
            "A shuffled loader with batches of 3, 3, 3 and 1 gives the same mean.",
            problem or "With a shuffled loader and `batch_size=3` (batches of 3, 3, 3 and 1) the result must still be "
            "the mean over all 10 samples; weight each batch by its size.",
        )


if __name__ == "__main__":
    unittest.main()
