"""Tests for `code-patches`: each test is renamed to the sentence the learner reads."""

import contextlib
import importlib
import io
import sys
import traceback
import unittest

import torch


def _report(case, ok, success, failure):
    """Rename the running test to the sentence the learner reads, then pass or fail it."""
    case._testMethodName = success if ok else failure
    if not ok:
        case.fail(failure)


def _run_learner_code(case):
    """Run the learner's file afresh; return the module and everything it printed."""
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            if "user_code" in sys.modules:
                module = importlib.reload(sys.modules["user_code"])
            else:
                import user_code as module
    except Exception as exc:  # report the learner's error and its line, not a traceback into the tests
        line = exc.lineno if isinstance(exc, SyntaxError) else None
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename.endswith("user_code.py"):
                line = frame.lineno
        where = f" on line {line}" if line else ""
        _report(case, False, "", f"Your code stopped with {type(exc).__name__}{where}: {exc}")
    return module, printed.getvalue()


def _patches(case, img, p):
    code, _ = _run_learner_code(case)
    fn = getattr(code, "to_patches", None)
    if not callable(fn):
        _report(case, False, "", "Define a function `to_patches(img, p)`.")
    try:
        out = fn(img, p)
    except Exception as exc:
        _report(case, False, "", f"`to_patches` raised {type(exc).__name__} for a {tuple(img.shape)} image: {exc}")
    if not isinstance(out, torch.Tensor):
        _report(case, False, "", f"`to_patches` must return a tensor, not {type(out).__name__}.")
    return out


def _expected(img, p):
    """Cut the patches out one by one, in reading order (a slow but obvious reference)."""
    h, w = img.shape
    return torch.stack([img[r : r + p, c : c + p] for r in range(0, h, p) for c in range(0, w, p)])


class TestPatches(unittest.TestCase):
    def test_shape(self):
        out = _patches(self, torch.arange(16).reshape(4, 4), 2)
        ok = out.shape == (4, 2, 2)
        _report(
            self,
            ok,
            "A 4 × 4 image with p = 2 gives 4 patches of 2 × 2.",
            f"A 4 × 4 image with p = 2 should give shape (4, 2, 2), got {tuple(out.shape)}.",
        )

    def test_first_patches(self):
        out = _patches(self, torch.arange(16).reshape(4, 4), 2)
        want = [[[0, 1], [4, 5]], [[2, 3], [6, 7]], [[8, 9], [12, 13]], [[10, 11], [14, 15]]]
        ok = out.shape == (4, 2, 2) and out.tolist() == want
        first = out[0].tolist() if out.dim() == 3 and len(out) > 0 else out.tolist()
        _report(
            self,
            ok,
            "The patches are the squares [[0, 1], [4, 5]], [[2, 3], [6, 7]], ... in reading order.",
            f"The first patch should be the square [[0, 1], [4, 5]], but your first patch is {first}: "
            "a plain reshape groups consecutive elements of one row. Split both axes, then reorder the dimensions.",
        )

    def test_rectangular(self):
        img = torch.arange(6 * 8).reshape(6, 8)
        out = _patches(self, img, 2)
        want = _expected(img, 2)
        ok = out.shape == want.shape and torch.equal(out, want)
        _report(
            self,
            ok,
            "A 6 × 8 image is cut into 12 correct 2 × 2 patches.",
            f"For a 6 × 8 image with p = 2 the result should have shape {tuple(want.shape)}, got {tuple(out.shape)}."
            if out.shape != want.shape
            else "For a 6 × 8 image with p = 2 the shape is right but the patches are not the 2 × 2 squares in "
            "reading order (compare your first patch with `img[0:2, 0:2]`).",
        )

    def test_bigger_patches(self):
        img = torch.arange(6 * 9).reshape(6, 9).float()
        out = _patches(self, img, 3)
        want = _expected(img, 3)
        ok = out.shape == want.shape and torch.equal(out, want)
        _report(
            self,
            ok,
            "p = 3 on a 6 × 9 image works too.",
            f"For a 6 × 9 image with p = 3 the result should have shape (6, 3, 3), got {tuple(out.shape)}: "
            "work the sizes out from `p` and the image's shape."
            if out.shape != want.shape
            else "For a 6 × 9 image with p = 3 the shape is right but the patches are not the 3 × 3 squares in "
            "reading order.",
        )

    def test_image_unchanged(self):
        img = torch.arange(16).reshape(4, 4)
        before = img.clone()
        _patches(self, img, 2)
        ok = torch.equal(img, before) and img.shape == (4, 4)
        _report(self, ok, "The image itself is left unchanged.", "`to_patches` changed the image it was given.")


if __name__ == "__main__":
    unittest.main()
