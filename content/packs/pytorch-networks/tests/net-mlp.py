import importlib
import io
import sys
import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _make(*sizes):
    """Build user_code.MLP(*sizes); return (model, problem text or None)."""
    import user_code

    cls = getattr(user_code, "MLP", None)
    if cls is None:
        return None, "`MLP` is not defined."
    try:
        torch.manual_seed(0)
        return cls(*sizes), None
    except Exception as exc:
        return None, f"`MLP{sizes}` raised {type(exc).__name__}: {exc}"


class TestMLP(unittest.TestCase):
    def test_is_module(self):
        model, problem = _make(4, 8, 3)
        ok = problem is None and isinstance(model, nn.Module)
        _report(
            self,
            ok,
            "`MLP` is an `nn.Module`.",
            problem or "Declare `class MLP(nn.Module):` and call `super().__init__()` first in `__init__`.",
        )

    def test_output_shape(self):
        model, problem = _make(4, 8, 3)
        ok = False
        if problem is None:
            try:
                out = model(torch.randn(5, 4))
                ok = isinstance(out, torch.Tensor) and out.shape == (5, 3)
            except Exception as exc:
                problem = f"Calling the model raised {type(exc).__name__}: {exc}"
        _report(
            self,
            ok,
            "`MLP(4, 8, 3)` maps a batch of shape (5, 4) to shape (5, 3).",
            problem or "`forward` must map `(batch, in_features)` to `(batch, out_features)`: "
            "Linear(in, hidden), ReLU, Linear(hidden, out).",
        )

    def test_parameters_registered(self):
        model, problem = _make(4, 8, 3)
        ok = problem is None and sum(p.numel() for p in model.parameters()) == 67
        ok = ok and len(list(model.parameters())) == 4
        count = sum(p.numel() for p in model.parameters()) if problem is None else None
        _report(
            self,
            ok,
            "All 67 parameters of `MLP(4, 8, 3)` are registered (4·8 + 8 + 8·3 + 3).",
            problem or f"`model.parameters()` holds {count} numbers; it should hold 67 in 4 tensors. Layers kept in a "
            "plain Python list are invisible to PyTorch: assign each layer to an attribute, or use "
            "`nn.Sequential` / `nn.ModuleList`.",
        )

    def test_nonlinear(self):
        model, problem = _make(2, 16, 1)
        ok = False
        if problem is None:
            try:
                torch.manual_seed(1)
                x = torch.randn(20, 2)
                with torch.no_grad():
                    gap = model(x) + model(-x) - 2 * model(torch.zeros(20, 2))
                ok = gap.abs().max().item() > 1e-4
            except Exception as exc:
                problem = f"Calling the model raised {type(exc).__name__}: {exc}"
        _report(
            self,
            ok,
            "The hidden layer goes through a ReLU, so the network is not just one linear map.",
            problem or "Without an activation, two Linear layers collapse into one linear map. Apply `nn.ReLU()` "
            "(or `torch.relu`) between the two layers.",
        )

    def test_computes_linear_relu_linear(self):
        model, problem = _make(4, 8, 3)
        ok = False
        if problem is None:
            by_shape = {tuple(p.shape): p.detach() for p in model.parameters()}
            if not {(8, 4), (8,), (3, 8), (3,)} <= set(by_shape):
                problem = (
                    "The two Linear layers are not registered (`model.parameters()` has no weights of shapes (8, 4) "
                    "and (3, 8)), so their output cannot be checked: keep them in `nn.Sequential` or `nn.ModuleList`, "
                    "or assign each to an attribute."
                )
            else:
                torch.manual_seed(2)
                x = torch.randn(50, 4)
                hidden = torch.relu(x @ by_shape[(8, 4)].T + by_shape[(8,)])
                expected = hidden @ by_shape[(3, 8)].T + by_shape[(3,)]
                try:
                    with torch.no_grad():
                        out = model(x)
                    ok = isinstance(out, torch.Tensor) and out.shape == (50, 3) and torch.allclose(out, expected, atol=1e-5)
                except Exception as exc:
                    problem = f"Calling the model raised {type(exc).__name__}: {exc}"
        _report(
            self,
            ok,
            "The output is exactly Linear → ReLU → Linear: ReLU on the hidden layer, nothing after the last layer.",
            problem or "The output differs from `Linear(in, hidden)` → ReLU → `Linear(hidden, out)` computed with your "
            "own weights. Use ReLU (not Sigmoid or Tanh) between the layers, and return the last layer's output as it "
            "is: an activation after it would cut off negative scores.",
        )

    def test_prints_count(self):
        import user_code

        buffer = io.StringIO()
        problem = None
        sys.stdout = buffer
        try:
            importlib.reload(user_code)
        except Exception as exc:
            problem = f"Running your file raised {type(exc).__name__}: {exc}"
        finally:
            sys.stdout = sys.__stdout__
        ok = problem is None and "parameters: 67" in buffer.getvalue()
        _report(
            self,
            ok,
            "The script prints `parameters: 67`.",
            problem or "The last line should print `parameters: 67` for `MLP(4, 8, 3)` "
            f"(it printed {buffer.getvalue().strip()[-40:]!r}).",
        )


if __name__ == "__main__":
    unittest.main()
