import math
import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Sequential(nn.Linear(100, 50), nn.ReLU())
        self.norm = nn.LayerNorm(50)


def _model():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(400, 100), nn.ReLU(), Block(), nn.Linear(50, 10))
    with torch.no_grad():
        model[2].norm.weight.fill_(2.0)  # marks the LayerNorm, which must be left alone
        model[2].norm.bias.fill_(0.5)
    return model


def _initialised():
    import user_code

    fn = getattr(user_code, "init_relu_net", None)
    if not callable(fn):
        return None, "`init_relu_net` is not defined as a function."
    model = _model()
    torch.manual_seed(1)
    try:
        fn(model)
    except Exception as exc:
        return None, f"`init_relu_net` raised {type(exc).__name__}: {exc}"
    return model, None


def _linears(model):
    return [model[0], model[2].inner[0], model[3]]


class TestInit(unittest.TestCase):
    def test_biases_zero(self):
        model, problem = _initialised()
        ok = problem is None and all(torch.count_nonzero(layer.bias) == 0 for layer in _linears(model))
        _report(self, ok, "Every linear layer's bias is zero, nested ones included.",
                problem or "Set every `nn.Linear` bias to zero with `nn.init.zeros_`, including the layer nested "
                "inside a submodule: iterate over `model.modules()`, not just `model.children()`.")

    def test_std_first_layer(self):
        model, problem = _initialised()
        std = model[0].weight.std().item() if problem is None else None
        target = math.sqrt(2 / 400)
        ok = problem is None and abs(std - target) < 0.05 * target
        _report(self, ok, "A Linear(400, 100) gets weights with standard deviation sqrt(2 / 400) ≈ 0.0707.",
                problem or f"The first layer's weights have standard deviation {std:.4f}; He initialisation for ReLU "
                f"uses sqrt(2 / fan_in) = {target:.4f} (Xavier would give sqrt(2 / (fan_in + fan_out)), and "
                "zeros give 0).")

    def test_std_nested_layer(self):
        model, problem = _initialised()
        std = model[2].inner[0].weight.std().item() if problem is None else None
        target = math.sqrt(2 / 100)
        ok = problem is None and abs(std - target) < 0.08 * target
        _report(self, ok, "The nested Linear(100, 50) is re-initialised too, with standard deviation sqrt(2 / 100).",
                problem or f"The nested layer's weights have standard deviation {std:.4f}, expected about {target:.4f}: "
                "visit every submodule with `model.modules()` or `model.apply`.")

    def test_normal_distribution(self):
        model, problem = _initialised()
        ok = False
        if problem is None:
            weight = model[0].weight
            ok = weight.abs().max().item() > 3 * math.sqrt(2 / 400)
        _report(self, ok, "The weights come from a normal distribution (some lie beyond three standard deviations).",
                problem or "No weight lies beyond three standard deviations, so these are not normal draws: use "
                "`nn.init.kaiming_normal_`, not `kaiming_uniform_`.")

    def test_layer_norm_untouched(self):
        model, problem = _initialised()
        norm = model[2].norm if problem is None else None
        ok = problem is None and bool((norm.weight == 2.0).all()) and bool((norm.bias == 0.5).all())
        _report(self, ok, "Layers other than `nn.Linear` (here a LayerNorm) are left as they were.",
                problem or "The LayerNorm's parameters changed; only `nn.Linear` layers should be re-initialised.")


if __name__ == "__main__":
    unittest.main()
