import unittest

import torch
from torch.utils.data import DataLoader


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _batch():
    return [
        (torch.tensor([5, 6, 7]), 1),
        (torch.tensor([8]), 0),
        (torch.tensor([9, 10]), 1),
    ]


def _collate(batch):
    """Call user_code.pad_collate; return (result, problem text or None)."""
    import user_code

    fn = getattr(user_code, "pad_collate", None)
    if not callable(fn):
        return None, "`pad_collate` is not defined as a function."
    try:
        result = fn(batch)
    except Exception as exc:
        return None, f"`pad_collate` raised {type(exc).__name__}: {exc}"
    if not (isinstance(result, (tuple, list)) and len(result) == 3):
        return None, "`pad_collate` must return three things: `(padded, lengths, labels)`."
    if not all(isinstance(t, torch.Tensor) for t in result):
        return None, "`padded`, `lengths` and `labels` must all be tensors."
    return result, None


class TestPadCollate(unittest.TestCase):
    def test_padded_values(self):
        result, problem = _collate(_batch())
        expected = torch.tensor([[5, 6, 7], [8, 0, 0], [9, 10, 0]])
        ok = problem is None and result[0].shape == (3, 3) and torch.equal(result[0].long(), expected)
        _report(
            self,
            ok,
            "Sequences are padded with 0 to the longest one, one row per sample, in batch order.",
            problem or "`padded` must have shape (batch, longest length) with each sequence in its own row, in the "
            "order given, and zeros after it: for [5, 6, 7], [8], [9, 10] that is "
            "[[5, 6, 7], [8, 0, 0], [9, 10, 0]] (try `pad_sequence(..., batch_first=True)`).",
        )

    def test_lengths(self):
        result, problem = _collate(_batch())
        ok = problem is None and result[1].dtype == torch.int64 and torch.equal(result[1], torch.tensor([3, 1, 2]))
        _report(
            self,
            ok,
            "`lengths` holds each sequence's true length as an int64 tensor.",
            problem or "`lengths` must be `torch.tensor([3, 1, 2])` with dtype int64 (the default for a tensor of "
            f"Python ints; yours is {result[1].dtype}) for sequences of lengths 3, 1 and 2, so the model can ignore "
            "the padding later (`pack_padded_sequence` wants int64 lengths)."
            if problem is None and torch.equal(result[1], torch.tensor([3, 1, 2]))
            else problem or "`lengths` must be `torch.tensor([3, 1, 2])` (int64) for sequences of lengths 3, 1 and 2, "
            "so the model can ignore the padding later.",
        )

    def test_labels(self):
        result, problem = _collate(_batch())
        ok = problem is None and result[2].dtype == torch.int64 and torch.equal(result[2], torch.tensor([1, 0, 1]))
        _report(
            self,
            ok,
            "`labels` is an int64 tensor with one label per sample.",
            problem or "`labels` must be `torch.tensor([1, 0, 1])` with dtype int64 (what `CrossEntropyLoss` expects "
            "of class indices): turn the integer labels into one tensor with `torch.tensor(...)`.",
        )

    def test_in_a_loader(self):
        import user_code

        data = [(torch.arange(1, n + 1), n % 2) for n in (4, 1, 3, 2, 5, 2, 1)]
        fn = getattr(user_code, "pad_collate", None)
        ok, problem = False, None
        if callable(fn):
            try:
                shapes = [tuple(p.shape) for p, _, _ in DataLoader(data, batch_size=3, collate_fn=fn)]
                ok = shapes == [(3, 4), (3, 5), (1, 1)]
            except Exception as exc:
                problem = f"Using `pad_collate` in a DataLoader raised {type(exc).__name__}: {exc}"
        else:
            problem = "`pad_collate` is not defined as a function."
        _report(
            self,
            ok,
            "`DataLoader(..., collate_fn=pad_collate)` pads each batch to its own longest sequence.",
            problem or "With `collate_fn=pad_collate` and `batch_size=3`, seven sequences of lengths 4, 1, 3, 2, 5, 2, 1 "
            "should give padded batches of shapes (3, 4), (3, 5) and (1, 1).",
        )


if __name__ == "__main__":
    unittest.main()
