import copy
import unittest
import warnings

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


MAX_NORM = 0.5


class HalveEvery:
    """Halves the learning rate every `every` steps, as StepLR(step_size=every, gamma=0.5) does.

    A plain object rather than StepLR: StepLR wraps the optimizer's own `step`, and the grader hands
    your function copies of these objects, so that wrapper could not follow them.
    """

    def __init__(self, optimizer, every):
        self.optimizer = optimizer
        self.every = every
        self.steps = 0

    def step(self):
        self.steps += 1
        if self.steps % self.every == 0:
            for group in self.optimizer.param_groups:
                group["lr"] *= 0.5


def _setup():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    g = torch.Generator().manual_seed(1)
    batches = [(torch.randn(6, 3, generator=g) * 3, torch.randn(6, 1, generator=g) * 5) for _ in range(6)]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = HalveEvery(optimizer, 2)
    return model, batches, optimizer, scheduler


def _reference():
    model, batches, optimizer, scheduler = _setup()
    norms = []
    for x, y in batches:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        norms.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), MAX_NORM)))
        optimizer.step()
        scheduler.step()
    return model, norms, optimizer.param_groups[0]["lr"]


def _run():
    import user_code

    model, batches, optimizer, scheduler = _setup()
    fn = getattr(user_code, "train_steps", None)
    if not callable(fn):
        return None, None, None, [], "`train_steps` is not defined as a function."
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            norms = fn(model, batches, nn.MSELoss(), optimizer, scheduler, MAX_NORM)
        except Exception as exc:
            return None, None, None, [], f"`train_steps` raised {type(exc).__name__}: {exc}"
    messages = [str(w.message) for w in caught]
    return model, norms, optimizer.param_groups[0]["lr"], messages, None


class TestTrainSteps(unittest.TestCase):
    def test_norms_before_clipping(self):
        _, expected, _ = _reference()
        _, norms, _, _, problem = _run()
        ok = (
            problem is None
            and isinstance(norms, list)
            and len(norms) == len(expected)
            and all(isinstance(n, float) for n in norms)
            and all(abs(a - b) < 1e-4 for a, b in zip(norms, expected))
        )
        shown = [round(n, 3) for n in expected]
        _report(
            self,
            ok,
            "It returns one float per batch: the gradient norm measured before clipping.",
            problem or f"Expected the norms before clipping, {shown}, as Python floats; got {norms!r}. "
            "`clip_grad_norm_` returns exactly that value.",
        )

    def test_weights_match(self):
        reference, _, _ = _reference()
        model, _, _, _, problem = _run()
        ok = problem is None and all(
            torch.allclose(a, b, atol=1e-5) for a, b in zip(model.parameters(), reference.parameters(), strict=True)
        )
        _report(
            self,
            ok,
            "Each update uses the clipped gradients and the scheduled learning rate.",
            problem or "The weights differ from the expected ones: clip between `loss.backward()` and "
            "`optimizer.step()`, and call `scheduler.step()` after `optimizer.step()`, once per batch.",
        )

    def test_schedule_advanced(self):
        _, _, expected_lr = _reference()
        _, _, lr, _, problem = _run()
        ok = problem is None and abs(lr - expected_lr) < 1e-9
        _report(
            self,
            ok,
            "The scheduler is advanced once per batch.",
            problem or f"After 6 batches, halving every 2 steps, the learning rate should be "
            f"{expected_lr}, not {lr}.",
        )


if __name__ == "__main__":
    unittest.main()
