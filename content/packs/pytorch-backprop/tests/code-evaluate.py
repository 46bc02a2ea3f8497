"""Tests for `code-evaluate`: each test is renamed to the sentence the learner reads."""

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


class _Probe(torch.nn.Module):
    """A tiny linear model that notes whether gradients were being recorded each time it runs."""

    def __init__(self):
        super().__init__()
        gen = torch.Generator().manual_seed(0)
        self.lin = torch.nn.Linear(3, 1)
        with torch.no_grad():
            self.lin.weight.copy_(torch.randn(1, 3, generator=gen))
            self.lin.bias.copy_(torch.randn(1, generator=gen))
        self.recording = []

    def forward(self, x):
        self.recording.append(torch.is_grad_enabled())
        return self.lin(x)


def _batch():
    gen = torch.Generator().manual_seed(1)
    return torch.randn(8, 3, generator=gen), torch.randn(8, 1, generator=gen)


def _evaluate(case, model, x, y):
    code, _ = _run_learner_code(case)
    fn = getattr(code, "evaluate", None)
    if not callable(fn):
        _report(case, False, "", "Define a function `evaluate(model, x, y)`.")
    try:
        return fn(model, x, y)
    except Exception as exc:
        _report(case, False, "", f"`evaluate` raised {type(exc).__name__}: {exc}")
    finally:
        recording_after = torch.is_grad_enabled()
        torch.set_grad_enabled(True)  # never let a learner's global switch break the other tests
        case._recording_after = recording_after


class TestEvaluate(unittest.TestCase):
    def test_returns_float(self):
        model = _Probe()
        result = _evaluate(self, model, *_batch())
        ok = isinstance(result, float)
        _report(
            self,
            ok,
            "`evaluate` returns a Python float.",
            f"`evaluate` returned a {type(result).__name__}; return a Python float, e.g. with `loss.item()`.",
        )

    def test_value(self):
        model = _Probe()
        x, y = _batch()
        result = _evaluate(self, model, x, y)
        with torch.no_grad():
            want = ((model.lin(x) - y) ** 2).mean().item()
        try:
            ok = abs(float(result) - want) < 1e-5
        except (TypeError, ValueError):
            ok = False
        _report(
            self,
            ok,
            "The value is the mean squared error of the model's predictions.",
            f"`evaluate` returned {result!r}, but the mean squared error is {want:.5f}: "
            "average `(model(x) - y) ** 2` over all elements.",
        )

    def test_nothing_recorded(self):
        model = _Probe()
        _evaluate(self, model, *_batch())
        ok = len(model.recording) > 0 and not any(model.recording)
        _report(
            self,
            ok,
            "The model ran with gradient recording switched off.",
            "The model ran while gradients were being recorded: call it inside `with torch.no_grad():` "
            "(or `torch.inference_mode()`)." if model.recording else "`evaluate` never called the model.",
        )

    def test_recording_back_on(self):
        model = _Probe()
        _evaluate(self, model, *_batch())
        ok = self._recording_after
        _report(
            self,
            ok,
            "Gradient recording is back on after `evaluate` returns.",
            "After `evaluate` returned, gradient recording was still off, which would break training: "
            "use a `with` block instead of switching it off globally.",
        )

    def test_model_untouched(self):
        model = _Probe()
        before = [p.detach().clone() for p in model.parameters()]
        _evaluate(self, model, *_batch())
        same = all(torch.equal(a, p.detach()) for a, p in zip(before, model.parameters(), strict=True))
        no_grads = all(p.grad is None for p in model.parameters())
        _report(
            self,
            same and no_grads,
            "The model's parameters and gradients are left alone.",
            "`evaluate` changed the model's parameters or filled their gradients: do not call `backward()` "
            "or update anything during evaluation.",
        )


if __name__ == "__main__":
    unittest.main()
