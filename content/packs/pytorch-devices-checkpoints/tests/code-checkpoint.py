import os
import tempfile
import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _data():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(32, 3, generator=g)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.1 * torch.randn(32, 1, generator=g)
    return x, y


def _fresh():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    return model, optimizer


def _epoch(model, optimizer, x, y):
    for start in range(0, len(x), 8):
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x[start : start + 8]), y[start : start + 8]).backward()
        optimizer.step()


def _functions():
    import user_code

    save = getattr(user_code, "save_checkpoint", None)
    load = getattr(user_code, "load_checkpoint", None)
    if not callable(save) or not callable(load):
        return None, None, "Define both `save_checkpoint` and `load_checkpoint` as functions."
    return save, load, None


class TestCheckpoint(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.folder.name, "ckpt.pt")

    def tearDown(self):
        self.folder.cleanup()

    def test_safe_to_load(self):
        save, _, problem = _functions()
        ok = False
        if problem is None:
            model, optimizer = _fresh()
            try:
                save(self.path, model, optimizer, 0)
                torch.load(self.path, weights_only=True)
                ok = True
            except Exception as exc:
                problem = (
                    f"`torch.load(path, weights_only=True)` failed on your checkpoint ({type(exc).__name__}). "
                    "Save state dicts and plain values, not the model or optimizer objects."
                )
        _report(self, ok, "The checkpoint loads with `torch.load(path, weights_only=True)`.", problem or "")

    def test_next_epoch(self):
        save, load, problem = _functions()
        value = None
        if problem is None:
            model, optimizer = _fresh()
            try:
                save(self.path, model, optimizer, 6)
                model2, optimizer2 = _fresh()
                value = load(self.path, model2, optimizer2)
            except Exception as exc:
                problem = f"Saving and loading raised {type(exc).__name__}: {exc}"
        ok = problem is None and value == 7 and type(value) is int
        _report(
            self,
            ok,
            "After a checkpoint written at the end of epoch 6, `load_checkpoint` returns 7.",
            problem or f"`load_checkpoint` returned {value!r}: the checkpoint was written after epoch 6 finished, so "
            "training continues with epoch 7 (an int).",
        )

    def test_weights_restored(self):
        save, load, problem = _functions()
        ok = False
        if problem is None:
            x, y = _data()
            model, optimizer = _fresh()
            _epoch(model, optimizer, x, y)
            try:
                save(self.path, model, optimizer, 0)
                other = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
                load(self.path, other, torch.optim.SGD(other.parameters(), lr=0.05, momentum=0.9))
                ok = all(torch.equal(a, b) for a, b in zip(model.parameters(), other.parameters(), strict=True))
            except Exception as exc:
                problem = f"Saving and loading raised {type(exc).__name__}: {exc}"
        _report(
            self,
            ok,
            "`load_checkpoint` puts the saved weights into the model passed in.",
            problem or "After `load_checkpoint(path, model, optimizer)` the model must hold the saved weights: call "
            "`model.load_state_dict(...)` with the saved model state.",
        )

    def test_resume_matches(self):
        save, load, problem = _functions()
        ok = False
        if problem is None:
            x, y = _data()
            straight, straight_opt = _fresh()
            for _ in range(3):
                _epoch(straight, straight_opt, x, y)

            first, first_opt = _fresh()
            _epoch(first, first_opt, x, y)
            try:
                save(self.path, first, first_opt, 0)
                torch.manual_seed(123)
                resumed = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
                resumed_opt = torch.optim.SGD(resumed.parameters(), lr=0.05, momentum=0.9)
                start = load(self.path, resumed, resumed_opt)
                for _ in range(start, 3):
                    _epoch(resumed, resumed_opt, x, y)
                ok = all(
                    torch.allclose(a, b, atol=1e-6)
                    for a, b in zip(straight.parameters(), resumed.parameters(), strict=True)
                )
            except Exception as exc:
                problem = f"Saving, loading or training on raised {type(exc).__name__}: {exc}"
        _report(
            self,
            ok,
            "Training stopped after epoch 0 and resumed gives the same weights as an uninterrupted run.",
            problem or "The resumed run ends with different weights than the run that was never stopped. Save "
            "`optimizer.state_dict()` too (the momentum buffers) and restore it with `optimizer.load_state_dict`, "
            "and return the next epoch so no epoch is repeated or skipped.",
        )


if __name__ == "__main__":
    unittest.main()
