import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _model():
    torch.manual_seed(0)
    model = nn.Sequential()
    model.add_module("block", nn.Sequential(nn.Linear(3, 5), nn.ReLU()))
    model.add_module("head", nn.Linear(5, 2))
    return model


def _capture(model, x, names):
    import user_code

    fn = getattr(user_code, "capture", None)
    if not callable(fn):
        return None, "`capture` is not defined as a function."
    try:
        result = fn(model, x, names)
    except Exception as exc:
        return None, f"`capture` raised {type(exc).__name__}: {exc}"
    if not isinstance(result, dict):
        return None, f"`capture` must return a dict, not {type(result).__name__}."
    return result, None


def _hook_count(model):
    return sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in model.modules())


class TestCapture(unittest.TestCase):
    def test_values(self):
        model = _model()
        x = torch.randn(4, 3)
        got, problem = _capture(model, x, ["block.0", "block", "head"])
        ok = False
        if problem is None:
            with torch.no_grad():
                pre = model.block[0](x)
                expected = {"block.0": pre, "block": torch.relu(pre), "head": model.head(torch.relu(pre))}
            ok = set(got) == set(expected) and all(
                isinstance(got[k], torch.Tensor) and got[k].shape == v.shape and torch.allclose(got[k], v)
                for k, v in expected.items()
            )
        _report(
            self,
            ok,
            "Each requested module's output is captured under its own name, nested names included.",
            problem or "The dict must map exactly the requested names ('block.0', 'block', 'head') to those modules' "
            "outputs. Find modules with `dict(model.named_modules())`, and bind each hook to its own name (a closure "
            "in a loop sees the last name unless you pass it as a default argument).",
        )

    def test_detached(self):
        model = _model()
        got, problem = _capture(model, torch.randn(2, 3), ["block.0", "head"])
        ok = problem is None and all(isinstance(v, torch.Tensor) and v.grad_fn is None for v in got.values())
        _report(
            self,
            ok,
            "The captured outputs are detached from the graph.",
            problem or "Store `output.detach()`: a tensor with a `grad_fn` keeps the whole graph of the forward pass alive.",
        )

    def test_hooks_removed(self):
        model = _model()
        _, problem = _capture(model, torch.randn(2, 3), ["block.0", "head"])
        ok = problem is None and _hook_count(model) == 0
        _report(
            self,
            ok,
            "No hooks are left on the model afterwards.",
            problem or "Keep the handles returned by `register_forward_hook` and call `remove()` on each after the run.",
        )


if __name__ == "__main__":
    unittest.main()
