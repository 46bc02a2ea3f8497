import unittest

import torch


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


_CALLS = [0]


def seeded_noise():
    return torch.randn(6) * 3


def seeded_pair():
    return torch.randn(3), torch.randint(0, 10, (4,))


def drifting():
    _CALLS[0] += 1
    return torch.randn(6) + _CALLS[0] * 1e-7


def drifting_second():
    _CALLS[0] += 1
    return torch.randn(2), torch.randn(3) + _CALLS[0]


def _check(fn, seed):
    import user_code

    check = getattr(user_code, "check_reproducible", None)
    if not callable(check):
        return None, "`check_reproducible` is not defined as a function."
    try:
        result = check(fn, seed)
    except Exception as exc:
        return None, f"`check_reproducible` raised {type(exc).__name__}: {exc}"
    if not isinstance(result, bool):
        return None, f"`check_reproducible` must return True or False, not {result!r}."
    return result, None


class TestCheck(unittest.TestCase):
    def test_seeded_tensor(self):
        result, problem = _check(seeded_noise, 3)
        _report(
            self,
            problem is None and result is True,
            "A function that only uses seeded torch randomness is reproducible.",
            problem or "`torch.randn` after the same seed gives the same numbers, so the answer is True: seed right "
            "before each of the two runs, not once before both.",
        )

    def test_seeded_tuple(self):
        result, problem = _check(seeded_pair, 4)
        _report(
            self,
            problem is None and result is True,
            "A function returning a tuple of seeded tensors is reproducible.",
            problem or "For a tuple, compare each tensor with its counterpart (`torch.equal` on every pair).",
        )

    def test_tiny_drift(self):
        result, problem = _check(drifting, 5)
        _report(
            self,
            problem is None and result is False,
            "Results that differ by a rounding step are not reproducible.",
            problem or "The two runs differ by about 1e-7, so the answer is False: compare with `torch.equal`, not "
            "`torch.allclose`.",
        )

    def test_drift_in_second_tensor(self):
        result, problem = _check(drifting_second, 6)
        _report(
            self,
            problem is None and result is False,
            "A difference in any tensor of a tuple makes the result not reproducible.",
            problem or "Only the second tensor of the tuple differs between the runs: compare every tensor, not just the first.",
        )


if __name__ == "__main__":
    unittest.main()
