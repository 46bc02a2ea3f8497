import unittest

import torch
import torch.nn.functional as F
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _model():
    torch.manual_seed(0)
    model = nn.Sequential()
    model.add_module("hidden", nn.Sequential(nn.Linear(3, 6), nn.ReLU()))
    model.add_module("head", nn.Linear(6, 2))
    return model


def _data():
    g = torch.Generator().manual_seed(1)
    return torch.randn(8, 3, generator=g), torch.randn(8, 2, generator=g)


def _expected(name):
    model = _model()
    x, y = _data()
    outputs = {}
    modules = dict(model.named_modules())
    handle = modules[name].register_forward_hook(lambda m, a, out: outputs.__setitem__("out", out))
    pred = model(x)
    handle.remove()
    outputs["out"].retain_grad()
    F.mse_loss(pred, y).backward()
    return outputs["out"].grad.detach()


def _call(model, name):
    import user_code

    fn = getattr(user_code, "activation_grad", None)
    if not callable(fn):
        return None, "`activation_grad` is not defined as a function."
    x, y = _data()
    try:
        result = fn(model, x, y, name)
    except Exception as exc:
        return None, f"`activation_grad` raised {type(exc).__name__}: {exc}"
    if not isinstance(result, torch.Tensor):
        return None, f"`activation_grad` must return a tensor, not {type(result).__name__}."
    return result, None


class TestActivationGrad(unittest.TestCase):
    def _check(self, name, success):
        got, problem = _call(_model(), name)
        expected = _expected(name)
        ok = problem is None and got.shape == expected.shape and torch.allclose(got, expected, atol=1e-6)
        _report(
            self,
            ok,
            success,
            problem or f"For `{name}` the result differs from the gradient of `F.mse_loss(model(x), y)` with respect "
            "to that module's output. Capture the output in a forward hook and register a tensor hook on it (the "
            "gradient with respect to the module's input is a different tensor).",
        )

    def test_relu_block(self):
        self._check("hidden", "The gradient with respect to the hidden block's output (after its ReLU) is right.")

    def test_inner_linear(self):
        self._check("hidden.0", "The gradient with respect to a nested layer's output (`hidden.0`, before the ReLU) is right.")

    def test_no_hooks_left(self):
        model = _model()
        _, problem = _call(model, "hidden")
        count = sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in model.modules())
        _report(
            self,
            problem is None and count == 0,
            "No hooks are left on the model.",
            problem or "Remove the module hook after the backward pass (keep the handle and call `remove()`).",
        )


if __name__ == "__main__":
    unittest.main()
