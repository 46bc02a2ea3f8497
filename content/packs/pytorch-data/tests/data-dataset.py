import importlib
import io
import sys
import unittest

import torch
from torch.utils.data import DataLoader, Dataset


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _make(n):
    """Build user_code.LineDataset(n); return (dataset, problem text or None)."""
    import user_code

    cls = getattr(user_code, "LineDataset", None)
    if cls is None:
        return None, "`LineDataset` is not defined."
    try:
        return cls(n), None
    except Exception as exc:
        return None, f"`LineDataset({n})` raised {type(exc).__name__}: {exc}"


class TestLineDataset(unittest.TestCase):
    def test_is_a_dataset(self):
        import user_code

        cls = getattr(user_code, "LineDataset", None)
        ok = isinstance(cls, type) and issubclass(cls, Dataset)
        _report(
            self,
            ok,
            "`LineDataset` is a subclass of `torch.utils.data.Dataset`.",
            "Declare the class as `class LineDataset(Dataset):` with `Dataset` from `torch.utils.data`.",
        )

    def test_len(self):
        ds, problem = _make(7)
        if problem is None:
            try:
                ok = len(ds) == 7
            except Exception as exc:
                ok, problem = False, f"`len(dataset)` raised {type(exc).__name__}: {exc}"
        else:
            ok = False
        _report(
            self,
            ok,
            "`len(LineDataset(7))` is 7.",
            problem or "`__len__` must return the number of samples: `len(LineDataset(7))` should be 7.",
        )

    def test_getitem(self):
        ds, problem = _make(7)
        ok = False
        if problem is None:
            try:
                sample = ds[3]
                ok = (
                    isinstance(sample, tuple)
                    and len(sample) == 2
                    and all(isinstance(t, torch.Tensor) for t in sample)
                    and sample[0].shape == ()
                    and sample[0].dtype == torch.float32
                    and torch.allclose(sample[0], torch.tensor(3.0))
                    and torch.allclose(sample[1], torch.tensor(7.0))
                )
            except Exception as exc:
                problem = f"`dataset[3]` raised {type(exc).__name__}: {exc}"
        _report(
            self,
            ok,
            "`dataset[3]` is the pair `(tensor(3.), tensor(7.))`.",
            problem or "`__getitem__(i)` must return one sample as a tuple of two 0-dimensional float tensors "
            "`(x[i], y[i])`, with x = 0, 1, 2, ... and y = 2 * x + 1: `dataset[3]` is `(tensor(3.), tensor(7.))`.",
        )

    def test_batches(self):
        ds, problem = _make(10)
        ok = False
        if problem is None:
            try:
                sizes = []
                ok = True
                for xb, yb in DataLoader(ds, batch_size=4):
                    sizes.append(xb.shape[0])
                    ok = ok and xb.shape == yb.shape and torch.allclose(yb, 2 * xb + 1)
                ok = ok and sizes == [4, 4, 2]
            except Exception as exc:
                problem = f"Batching the dataset raised {type(exc).__name__}: {exc}"
        _report(
            self,
            ok,
            "A `DataLoader` with `batch_size=4` turns `LineDataset(10)` into batches of 4, 4 and 2 samples.",
            problem or "`DataLoader(LineDataset(10), batch_size=4)` should yield three `(xb, yb)` batches of sizes "
            "4, 4 and 2 with `yb == 2 * xb + 1`; check `__len__` and `__getitem__`.",
        )

    def test_prints_batch_count(self):
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
        ok = problem is None and "batches: 3" in buffer.getvalue()
        _report(
            self,
            ok,
            "The script prints `batches: 3`.",
            problem or "At the end of the file, build `DataLoader(LineDataset(10), batch_size=4)` and print "
            "`batches:` followed by `len(loader)`, i.e. `batches: 3`.",
        )


if __name__ == "__main__":
    unittest.main()
