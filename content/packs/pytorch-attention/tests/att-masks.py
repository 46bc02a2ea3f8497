import unittest

import torch


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _reference(lengths, L, causal):
    N = len(lengths)
    mask = torch.zeros(N, 1, L, L, dtype=torch.bool)
    for n, length in enumerate(lengths.tolist()):
        for i in range(L):
            for j in range(L):
                mask[n, 0, i, j] = j < length and (not causal or j <= i)
    return mask


def _call(lengths, L, causal):
    import user_code

    fn = getattr(user_code, "build_mask", None)
    if not callable(fn):
        return None, "`build_mask` is not defined as a function."
    try:
        result = fn(lengths, L, causal)
    except Exception as exc:
        return None, f"`build_mask` raised {type(exc).__name__}: {exc}"
    if not isinstance(result, torch.Tensor):
        return None, f"`build_mask` must return a tensor, not {type(result).__name__}."
    return result, None


def _check(test, lengths, L, causal, success, failure):
    got, problem = _call(lengths, L, causal)
    expected = _reference(lengths, L, causal)
    ok = problem is None and got.dtype == torch.bool and got.shape == expected.shape and torch.equal(got, expected)
    if problem is None and not ok:
        detail = f"dtype {got.dtype}, shape {tuple(got.shape)}"
        problem = f"{failure} (for lengths {lengths.tolist()}, L={L}: expected a bool tensor of shape " \
                  f"{tuple(expected.shape)}, got {detail}{'' if got.shape != expected.shape else ' with other values'})."
    _report(test, ok, success, problem or failure)


class TestMasks(unittest.TestCase):
    def test_padding(self):
        _check(
            self,
            torch.tensor([5, 2, 4]),
            5,
            False,
            "Without `causal`, each query may attend to exactly the real keys of its sentence.",
            "Key j is allowed when j < the sentence's length, for every query i",
        )

    def test_causal(self):
        _check(
            self,
            torch.tensor([4, 4]),
            4,
            True,
            "With `causal` and no padding, query i sees keys 0 to i, itself included.",
            "With `causal`, key j is allowed only when j <= i (the diagonal included)",
        )

    def test_both(self):
        _check(
            self,
            torch.tensor([6, 3, 1, 5]),
            6,
            True,
            "Padding and causality combine: real keys up to the query's own position.",
            "Both conditions must hold: j < length and j <= i",
        )


if __name__ == "__main__":
    unittest.main()
