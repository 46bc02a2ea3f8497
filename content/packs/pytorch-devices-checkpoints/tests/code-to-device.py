import unittest

import torch


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


META = torch.device("meta")


def _call(batch):
    import user_code

    fn = getattr(user_code, "to_device", None)
    if not callable(fn):
        return None, "`to_device` is not defined as a function."
    try:
        return fn(batch, META), None
    except Exception as exc:
        return None, f"`to_device` raised {type(exc).__name__}: {exc}"


def _on_meta(value):
    return isinstance(value, torch.Tensor) and value.device.type == "meta"


class TestToDevice(unittest.TestCase):
    def test_tensor(self):
        x = torch.randn(4, 3)
        out, problem = _call(x)
        ok = problem is None and _on_meta(out) and out.shape == (4, 3) and x.device.type == "cpu"
        _report(
            self,
            ok,
            "A single tensor is moved to the device.",
            problem or "`to_device(x, device)` must return `x.to(device)` for a tensor.",
        )

    def test_tuple(self):
        pair = (torch.randn(2, 3), torch.tensor([0, 1]))
        out, problem = _call(pair)
        ok = problem is None and type(out) is tuple and len(out) == 2 and all(_on_meta(t) for t in out)
        _report(
            self,
            ok,
            "A tuple `(x, y)` comes back as a tuple of moved tensors.",
            problem or f"For a tuple, return a tuple (got {type(out).__name__}) whose tensors are all on the device.",
        )

    def test_dtypes_kept(self):
        batch = (torch.randn(2, 3), torch.tensor([0, 2]), torch.tensor([True, False]), torch.zeros(2, dtype=torch.float64))
        out, problem = _call(batch)
        want = [t.dtype for t in batch]
        got = [getattr(t, "dtype", None) for t in out] if problem is None and isinstance(out, tuple) else None
        ok = problem is None and got == want and all(_on_meta(t) for t in out)
        _report(
            self,
            ok,
            "Each tensor keeps its dtype: int64 labels, bool masks and float64 values are only moved.",
            problem or f"Move each tensor without changing its dtype: expected {want}, got {got}. "
            "`tensor.to(device)` changes the device only.",
        )

    def test_dict_with_plain_values(self):
        batch = {"input": torch.randn(2, 5), "lengths": [5, 3], "name": "batch-0", "mask": None}
        out, problem = _call(batch)
        ok = (
            problem is None
            and isinstance(out, dict)
            and set(out) == set(batch)
            and _on_meta(out["input"])
            and out["lengths"] == [5, 3]
            and out["name"] == "batch-0"
            and out["mask"] is None
        )
        _report(
            self,
            ok,
            "A dict keeps its keys; tensors move and plain values (lists of ints, strings, None) stay as they are.",
            problem or "For a dict, return a dict with the same keys: move the tensors and pass ints, strings and "
            "`None` through unchanged (a list of ints stays a list of ints).",
        )

    def test_nested(self):
        batch = {"pair": (torch.randn(2), [torch.randn(3), torch.randn(1)]), "ids": (7, 8)}
        out, problem = _call(batch)
        ok = False
        if problem is None:
            try:
                first, rest = out["pair"]
                ok = (
                    type(out["pair"]) is tuple
                    and _on_meta(first)
                    and isinstance(rest, list)
                    and all(_on_meta(t) for t in rest)
                    and out["ids"] == (7, 8)
                )
            except Exception:
                ok = False
        _report(
            self,
            ok,
            "Nested containers are converted at every depth.",
            problem or "A dict holding a tuple that holds a list of tensors must come back with the same structure "
            "and every tensor moved: call `to_device` again on each element.",
        )

    def test_input_unchanged(self):
        x = torch.randn(3)
        batch = [x, {"y": torch.randn(2)}]
        out, problem = _call(batch)
        ok = problem is None and batch[0] is x and x.device.type == "cpu" and batch[1]["y"].device.type == "cpu"
        ok = ok and isinstance(out, list) and _on_meta(out[0]) and _on_meta(out[1]["y"])
        _report(
            self,
            ok,
            "The batch passed in is left as it was; the moved copy is returned.",
            problem or "Build and return new containers: the list and dict passed in must still hold their CPU "
            "tensors, and the returned list must hold moved ones.",
        )


if __name__ == "__main__":
    unittest.main()
