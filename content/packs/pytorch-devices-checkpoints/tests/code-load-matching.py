import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _net(classes, seed):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, classes))


def _trained_source():
    source = _net(10, 0)
    source.train()
    with torch.no_grad():
        for _ in range(3):
            source(torch.randn(16, 4) * 3 + 1)  # moves the batch-norm running statistics away from 0 and 1
    state = source.state_dict()
    state["projection.weight"] = torch.randn(2, 2)  # a layer the target does not have
    return state


def _call(model, state):
    import user_code

    fn = getattr(user_code, "load_matching", None)
    if not callable(fn):
        return None, "`load_matching` is not defined as a function."
    try:
        return fn(model, state), None
    except Exception as exc:
        return None, f"`load_matching` raised {type(exc).__name__}: {exc}"


class TestLoadMatching(unittest.TestCase):
    def test_no_error(self):
        _, problem = _call(_net(3, 1), _trained_source())
        _report(
            self,
            problem is None,
            "A checkpoint with a differently sized head and an extra layer loads without an error.",
            (problem or "")
            + " `strict=False` does not forgive shape mismatches: keep only the entries whose shape matches.",
        )

    def test_body_loaded(self):
        state = _trained_source()
        target = _net(3, 1)
        _, problem = _call(target, state)
        ok = problem is None and torch.equal(target[0].weight, state["0.weight"]) and torch.equal(target[0].bias, state["0.bias"])
        ok = ok and torch.equal(target[1].weight, state["1.weight"])
        _report(
            self,
            ok,
            "The layers whose shapes match get the checkpoint's weights.",
            problem or "The first linear layer and the batch norm's weight must hold the checkpoint's values after "
            "`load_matching`.",
        )

    def test_buffers_loaded(self):
        state = _trained_source()
        target = _net(3, 1)
        _, problem = _call(target, state)
        ok = problem is None and torch.equal(target[1].running_mean, state["1.running_mean"])
        ok = ok and torch.equal(target[1].running_var, state["1.running_var"])
        _report(
            self,
            ok,
            "Buffers (batch norm's running statistics) are loaded too.",
            problem or "The batch norm's `running_mean` and `running_var` were not loaded: compare against "
            "`model.state_dict()`, which holds buffers as well as parameters, not `named_parameters()`.",
        )

    def test_head_untouched(self):
        state = _trained_source()
        target = _net(3, 1)
        before = target[3].weight.detach().clone()
        _, problem = _call(target, state)
        ok = problem is None and torch.equal(target[3].weight, before) and target[3].weight.shape == (3, 6)
        _report(
            self,
            ok,
            "The head of a different shape keeps its own initial weights.",
            problem or "The last layer (3 classes instead of 10) must keep the weights it had before loading.",
        )

    def test_report(self):
        state = _trained_source()
        skipped, problem = _call(_net(3, 1), state)
        expected = ["3.bias", "3.weight", "projection.weight"]
        ok = problem is None and skipped == expected
        _report(
            self,
            ok,
            "It returns the sorted keys that were not loaded: the head's and the unknown layer's.",
            problem or f"Expected the sorted list {expected}, got {skipped!r}.",
        )


if __name__ == "__main__":
    unittest.main()
