import unittest

import torch


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


VOCAB = {"the": 2, "cat": 3, "sat": 4, "a": 5, "dog": 6, "ran": 7}
SENTENCES = [["the", "cat", "sat"], ["a", "dog"], ["the", "zebra", "ran", "far", "away"], ["cat"]]
IDS = [[2, 3, 4, 0, 0], [5, 6, 0, 0, 0], [2, 1, 7, 1, 1], [3, 0, 0, 0, 0]]
LENGTHS = [3, 2, 5, 1]


def _encode(sentences):
    import user_code

    fn = getattr(user_code, "encode", None)
    if not callable(fn):
        return None, "`encode` is not defined as a function."
    try:
        result = fn(sentences, dict(VOCAB))
    except Exception as exc:
        return None, f"`encode` raised {type(exc).__name__}: {exc}"
    if not (isinstance(result, tuple) and len(result) == 2):
        return None, f"`encode` must return a pair `(ids, lengths)`, not {type(result).__name__}."
    return result, None


class TestEncode(unittest.TestCase):
    def test_ids(self):
        result, problem = _encode(SENTENCES)
        ids = result[0] if result else None
        ok = problem is None and isinstance(ids, torch.Tensor) and ids.dtype == torch.int64 and ids.tolist() == IDS
        _report(
            self,
            ok,
            "`ids` holds one row per sentence: known ids, 1 for unknown tokens, 0 after the end.",
            problem or f"For the test sentences `ids` should be the int64 tensor {IDS}, got "
            f"{ids.tolist() if isinstance(ids, torch.Tensor) else ids!r}"
            f"{' of dtype ' + str(ids.dtype) if isinstance(ids, torch.Tensor) else ''}.",
        )

    def test_lengths(self):
        result, problem = _encode(SENTENCES)
        lengths = result[1] if result else None
        ok = problem is None and isinstance(lengths, torch.Tensor) and lengths.dtype == torch.int64
        ok = ok and lengths.tolist() == LENGTHS
        _report(
            self,
            ok,
            "`lengths` is an int64 tensor of the sentences' real lengths.",
            problem or f"`lengths` should be the int64 tensor {LENGTHS} (tokens before padding), got {lengths!r}.",
        )

    def test_one_sentence(self):
        result, problem = _encode([["dog", "sat"]])
        ok = problem is None and isinstance(result[0], torch.Tensor) and result[0].tolist() == [[6, 4]]
        ok = ok and isinstance(result[1], torch.Tensor) and result[1].tolist() == [2]
        _report(
            self,
            ok,
            "A batch of one sentence needs no padding.",
            problem or f"`encode([['dog', 'sat']], vocab)` should give `([[6, 4]], [2])`, got {result!r}.",
        )


if __name__ == "__main__":
    unittest.main()
