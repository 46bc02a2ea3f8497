import unittest

import torch
from torch.utils.data import DataLoader


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _data(n=100):
    # The feature of sample i is i itself, so batches show which samples they hold.
    x = torch.arange(n, dtype=torch.float32).unsqueeze(1)
    y = (torch.arange(n) % 2).float()
    return x, y


def _make(seed, batch_size=16, n=100):
    """Call user_code.make_loaders; return ((train, val), problem text or None)."""
    import user_code

    fn = getattr(user_code, "make_loaders", None)
    if not callable(fn):
        return None, "`make_loaders` is not defined as a function."
    x, y = _data(n)
    try:
        result = fn(x, y, batch_size, seed)
    except Exception as exc:
        return None, f"`make_loaders` raised {type(exc).__name__}: {exc}"
    if not (isinstance(result, tuple) and len(result) == 2 and all(isinstance(d, DataLoader) for d in result)):
        return None, "`make_loaders` must return a tuple of two DataLoaders: `(train_loader, val_loader)`."
    return result, None


def _epoch(loader):
    """The sample ids in the order one pass over the loader yields them."""
    return [int(v) for xb, _ in loader for v in xb[:, 0]]


class TestMakeLoaders(unittest.TestCase):
    def test_split_sizes(self):
        loaders, problem = _make(0)
        ok = problem is None and len(loaders[0].dataset) == 80 and len(loaders[1].dataset) == 20
        _report(
            self,
            ok,
            "100 samples are split into 80 for training and 20 for validation.",
            problem or "Split the `TensorDataset(x, y)` with `random_split(dataset, [0.8, 0.2], generator=...)`: "
            "the training loader's dataset should hold 80 samples and the validation one 20.",
        )

    def test_split_sizes_follow_the_data(self):
        loaders, problem = _make(0, n=45)
        ok = problem is None and len(loaders[0].dataset) == 36 and len(loaders[1].dataset) == 9
        _report(
            self,
            ok,
            "The split follows the data's size: 45 samples give 36 and 9.",
            problem or "With 45 samples the split must be 36 / 9: pass the fractions `[0.8, 0.2]` to `random_split` "
            "rather than fixed sizes such as `[80, 20]`.",
        )

    def test_last_partial_batch_kept(self):
        loaders, problem = _make(0, n=45)
        ok = problem is None and [xb.shape[0] for xb, _ in loaders[0]] == [16, 16, 4]
        ok = ok and [xb.shape[0] for xb, _ in loaders[1]] == [9]
        _report(
            self,
            ok,
            "The last, smaller batch is kept: 36 training samples give batches of 16, 16 and 4.",
            problem or "With 36 training samples and `batch_size=16` the batches must be 16, 16 and 4: leave "
            "`drop_last` at False so every sample is seen each epoch.",
        )

    def test_split_is_a_partition(self):
        loaders, problem = _make(0)
        ok = False
        if problem is None:
            train, val = _epoch(loaders[0]), _epoch(loaders[1])
            ok = len(train) == 80 and len(val) == 20 and sorted(train + val) == list(range(100))
        _report(
            self,
            ok,
            "Every sample lands in exactly one of the two loaders, and each epoch visits each sample once.",
            problem or "One pass over both loaders must show every sample exactly once (80 in training, 20 in "
            "validation): do not drop the last partial batch and do not reuse samples across the split.",
        )

    def test_batch_size(self):
        loaders, problem = _make(0, batch_size=16)
        ok = problem is None
        if ok:
            sizes = [xb.shape[0] for xb, _ in loaders[0]]
            ok = sizes == [16] * 5 and [xb.shape[0] for xb, _ in loaders[1]] == [16, 4]
        _report(
            self,
            ok,
            "Both loaders use the requested batch size (16, 16, 16, 16, 16 and 16, 4).",
            problem or "Pass `batch_size` to both DataLoaders: with 16, training gives five batches of 16 and "
            "validation one of 16 and one of 4.",
        )

    def test_same_seed_same_everything(self):
        first, problem = _make(3)
        ok = False
        if problem is None:
            order_one = _epoch(first[0]), _epoch(first[1])
            second, problem = _make(3)
            torch.rand(7)  # other code uses the global random generator before the first epoch
            if problem is None:
                ok = (_epoch(second[0]), _epoch(second[1])) == order_one
        _report(
            self,
            ok,
            "The same seed gives the same split and the same shuffled order.",
            problem or "Two calls with the same seed must give identical splits and identical first-epoch orders: "
            "seed the split and the training loader with `torch.Generator().manual_seed(seed)`.",
        )

    def test_global_generator_untouched(self):
        state = torch.get_rng_state()
        _, problem = _make(4)
        ok = problem is None and torch.equal(state, torch.get_rng_state())
        _report(
            self,
            ok,
            "`make_loaders` leaves PyTorch's global random generator alone.",
            problem or "`make_loaders` changed PyTorch's global random generator (for example with "
            "`torch.manual_seed`), which changes the random numbers of all other code: give `random_split` and the "
            "training DataLoader generators of their own, `torch.Generator().manual_seed(seed)`.",
        )

    def test_seed_matters(self):
        a, problem = _make(1)
        b, problem_b = _make(2)
        problem = problem or problem_b
        ok = problem is None and sorted(_epoch(a[1])) != sorted(_epoch(b[1]))
        _report(
            self,
            ok,
            "A different seed gives a different split.",
            problem or "Seeds 1 and 2 gave the same validation samples: use the `seed` argument for the split's "
            "generator instead of a fixed number (and do not split in order).",
        )

    def test_train_shuffles_val_does_not(self):
        loaders, problem = _make(5)
        ok = False
        if problem is None:
            train_1, train_2 = _epoch(loaders[0]), _epoch(loaders[0])
            val_1, val_2 = _epoch(loaders[1]), _epoch(loaders[1])
            subset_order = [int(loaders[1].dataset[i][0][0]) for i in range(len(loaders[1].dataset))]
            ok = train_1 != train_2 and sorted(train_1) == sorted(train_2) and val_1 == val_2 == subset_order
        _report(
            self,
            ok,
            "The training loader reshuffles every epoch; the validation loader keeps a fixed order.",
            problem or "Use `shuffle=True` (with the seeded generator) for training, so each epoch has a new "
            "order, and `shuffle=False` for validation, so every evaluation sees the samples in the same order.",
        )


if __name__ == "__main__":
    unittest.main()
