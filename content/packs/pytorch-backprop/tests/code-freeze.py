"""Tests for `code-freeze`: each test is renamed to the sentence the learner reads."""

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


def _model():
    torch.manual_seed(0)
    nn = torch.nn
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3), nn.ReLU(), nn.Linear(3, 2))


def _freeze(case, model):
    code, _ = _run_learner_code(case)
    fn = getattr(code, "freeze_all_but_last", None)
    if not callable(fn):
        _report(case, False, "", "Define a function `freeze_all_but_last(model)`.")
    try:
        return fn(model)
    except Exception as exc:
        _report(case, False, "", f"`freeze_all_but_last` raised {type(exc).__name__}: {exc}")


class TestFreeze(unittest.TestCase):
    def test_earlier_layers_frozen(self):
        model = _model()
        _freeze(self, model)
        ok = not any(p.requires_grad for layer in model[:-1] for p in layer.parameters())
        _report(
            self,
            ok,
            "Every parameter before the last layer has `requires_grad == False`.",
            "Some parameters of the earlier layers still require grad: call `requires_grad_(False)` on each of them "
            "(`eval()` does not do this).",
        )

    def test_last_layer_trainable(self):
        model = _model()
        _freeze(self, model)
        ok = all(p.requires_grad for p in model[-1].parameters())
        _report(
            self,
            ok,
            "The last layer is still trainable.",
            "The last layer's parameters must keep `requires_grad == True`.",
        )

    def test_count(self):
        model = _model()
        result = _freeze(self, model)
        ok = result == 8 and not isinstance(result, bool)
        _report(
            self,
            ok,
            "It returns 8, the number of trainable values (3 × 2 weights + 2 biases).",
            f"`freeze_all_but_last` returned {result!r}; the last `Linear(3, 2)` holds 3 × 2 + 2 = 8 trainable "
            "values: sum `p.numel()` over the parameters that still require grad.",
        )

    def test_gradients_after_backward(self):
        model = _model()
        _freeze(self, model)
        model(torch.ones(5, 4)).sum().backward()
        frozen_empty = all(p.grad is None for layer in model[:-1] for p in layer.parameters())
        last_filled = all(p.grad is not None for p in model[-1].parameters())
        _report(
            self,
            frozen_empty and last_filled,
            "After `backward()` only the last layer has gradients.",
            "After `backward()` the frozen layers must have no gradients and the last layer must have them.",
        )

    def test_values_unchanged(self):
        model = _model()
        before = [p.detach().clone() for p in model.parameters()]
        _freeze(self, model)
        ok = all(torch.equal(a, p.detach()) for a, p in zip(before, model.parameters(), strict=True))
        _report(self, ok, "No parameter's values were changed.", "`freeze_all_but_last` changed parameter values.")

    def test_last_layer_of_any_size(self):
        nn = torch.nn
        torch.manual_seed(0)
        no_bias = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2, bias=False))
        block = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 2)))
        counts = (_freeze(self, no_bias), _freeze(self, block))
        ok = (
            counts == (6, 20)
            and not any(p.requires_grad for p in no_bias[0].parameters())
            and not any(p.requires_grad for p in block[0].parameters())
            and all(p.requires_grad for p in no_bias[-1].parameters())
            and all(p.requires_grad for p in block[-1].parameters())
        )
        _report(
            self,
            ok,
            "It freezes by layer, whatever the last layer holds: one tensor (no bias) or a block of four.",
            f"With a last layer of one parameter tensor (`Linear(3, 2, bias=False)`, 6 values) or four (a block of two "
            f"`Linear`s, 20 values) you returned {counts[0]!r} and {counts[1]!r}, or froze the wrong tensors. "
            "Freeze the parameters of each layer in `model[:-1]`, rather than counting parameter tensors from the end.",
        )

    def test_single_layer(self):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(2, 2))
        result = _freeze(self, model)
        ok = result == 6 and all(p.requires_grad for p in model.parameters())
        _report(
            self,
            ok,
            "A model with a single layer stays fully trainable (6 values).",
            f"For `Sequential(Linear(2, 2))` nothing should be frozen and the count is 6; got {result!r}.",
        )


if __name__ == "__main__":
    unittest.main()
