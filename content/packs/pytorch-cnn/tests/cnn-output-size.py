import itertools
import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _real(size, kernel, stride, padding, dilation):
    conv = nn.Conv2d(1, 1, kernel, stride=stride, padding=padding, dilation=dilation, bias=False)
    with torch.no_grad():
        return conv(torch.zeros(1, 1, size, size)).shape[-1]


def _first_mismatch(cases):
    import user_code

    fn = getattr(user_code, "conv_output_size", None)
    if not callable(fn):
        return "`conv_output_size` is not defined as a function."
    for size, kernel, stride, padding, dilation in cases:
        if dilation * (kernel - 1) + 1 > size + 2 * padding:
            continue
        expected = _real(size, kernel, stride, padding, dilation)
        try:
            got = fn(size, kernel, stride=stride, padding=padding, dilation=dilation)
        except Exception as exc:
            return f"`conv_output_size` raised {type(exc).__name__}: {exc}"
        if isinstance(got, bool) or not isinstance(got, int) or got != expected:
            return (
                f"size={size}, kernel={kernel}, stride={stride}, padding={padding}, dilation={dilation}: "
                f"a real Conv2d gives {expected}, your function gave {got!r} (it must be an int)."
            )
    return None


class TestOutputSize(unittest.TestCase):
    def test_defaults(self):
        import user_code

        fn = getattr(user_code, "conv_output_size", None)
        problem = None if callable(fn) else "`conv_output_size` is not defined as a function."
        got = None
        if problem is None:
            try:
                got = fn(28, 3)
            except Exception as exc:
                problem = f"`conv_output_size(28, 3)` raised {type(exc).__name__}: {exc}"
        _report(
            self,
            problem is None and got == 26,
            "With the defaults (stride 1, no padding) a 3-wide kernel turns 28 into 26.",
            problem or f"`conv_output_size(28, 3)` should be 26, not {got!r}: without padding the kernel fits at "
            "28 - 3 + 1 positions.",
        )

    def test_padding_and_stride(self):
        cases = itertools.product([7, 10, 15, 28, 32], [1, 2, 3, 5], [1, 2, 3], [0, 1, 2], [1])
        problem = _first_mismatch(cases)
        _report(
            self,
            problem is None,
            "Padding and stride give the same sizes as real layers, odd sizes included.",
            problem or "",
        )

    def test_dilation(self):
        cases = itertools.product([9, 16, 21], [2, 3], [1, 2], [0, 1, 3], [2, 3])
        problem = _first_mismatch(cases)
        _report(
            self,
            problem is None,
            "Dilated kernels give the same sizes as real layers.",
            problem or "",
        )


if __name__ == "__main__":
    unittest.main()
