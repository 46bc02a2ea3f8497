import unittest

import torch
import torch.nn.functional as F
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


SHAPES = [(8, 1, 3, 3), (8,), (16, 8, 3, 3), (16,), (10, 784), (10,)]


def _make(num_classes=10):
    import user_code

    cls = getattr(user_code, "SmallCNN", None)
    if cls is None:
        return None, "`SmallCNN` is not defined."
    try:
        torch.manual_seed(0)
        return cls(num_classes), None
    except Exception as exc:
        return None, f"`SmallCNN({num_classes})` raised {type(exc).__name__}: {exc}"


def _forward(model, x):
    try:
        with torch.no_grad():
            return model(x), None
    except Exception as exc:
        return None, f"Calling the model on shape {tuple(x.shape)} raised {type(exc).__name__}: {exc}"


class TestSmallCNN(unittest.TestCase):
    def test_shape(self):
        model, problem = _make(10)
        out = None
        if problem is None:
            out, problem = _forward(model, torch.zeros(5, 1, 28, 28))
        ok = problem is None and isinstance(model, nn.Module) and isinstance(out, torch.Tensor) and out.shape == (5, 10)
        _report(
            self,
            ok,
            "`SmallCNN(10)` maps `(5, 1, 28, 28)` images to `(5, 10)` logits.",
            problem or "The output must have shape `(batch, num_classes)`; check the linear layer's `in_features` "
            "(channels × height × width after the second pooling) and that the batch dimension is kept.",
        )

    def test_parameters(self):
        model, problem = _make(10)
        shapes = sorted(tuple(p.shape) for p in model.parameters()) if problem is None else None
        ok = problem is None and shapes == sorted(SHAPES)
        _report(
            self,
            ok,
            "The layers are registered with the expected weight shapes (16 · 7 · 7 = 784 features into the head).",
            problem or f"Expected parameters of shapes {sorted(SHAPES)}, found {shapes}. Keep the layers in "
            "`nn.Sequential` or as attributes, and follow the architecture in the prompt.",
        )

    def test_num_classes(self):
        model, problem = _make(3)
        out = None
        if problem is None:
            out, problem = _forward(model, torch.zeros(2, 1, 28, 28))
        ok = problem is None and isinstance(out, torch.Tensor) and out.shape == (2, 3)
        _report(
            self,
            ok,
            "`num_classes` sets the size of the output.",
            problem or "`SmallCNN(3)` must return 3 logits per image: use `num_classes` as the head's `out_features`.",
        )

    def test_computation(self):
        model, problem = _make(10)
        ok = False
        if problem is None:
            params = {tuple(p.shape): p.detach() for p in model.parameters()}
            if set(params) != set(SHAPES):
                problem = "The layers' weight shapes do not match the architecture, so the computation cannot be checked."
            else:
                torch.manual_seed(1)
                x = torch.randn(4, 1, 28, 28)
                h = F.max_pool2d(F.relu(F.conv2d(x, params[(8, 1, 3, 3)], params[(8,)], padding=1)), 2)
                h = F.max_pool2d(F.relu(F.conv2d(h, params[(16, 8, 3, 3)], params[(16,)], padding=1)), 2)
                expected = h.flatten(1) @ params[(10, 784)].T + params[(10,)]
                out, problem = _forward(model, x)
                ok = problem is None and isinstance(out, torch.Tensor) and out.shape == expected.shape
                ok = ok and torch.allclose(out, expected, atol=1e-5)
        _report(
            self,
            ok,
            "The forward pass is conv → ReLU → max-pool twice, then flatten and the linear head, with nothing after it.",
            problem or "The output differs from conv → ReLU → MaxPool2d(2) (twice) → flatten → Linear computed with your "
            "own weights. Check that each convolution is padded by 1, that ReLU follows each convolution, that the "
            "pooling takes the maximum, and that the logits are returned without an activation.",
        )


if __name__ == "__main__":
    unittest.main()
