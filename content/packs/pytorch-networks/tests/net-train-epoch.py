import copy
import unittest

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


class Probe(nn.Module):
    """A small classifier that records the mode of every forward pass."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 2))
        self.seen = []

    def forward(self, x):
        self.seen.append(self.training)
        return self.net(x)


def _blobs(n=40):
    g = torch.Generator().manual_seed(0)
    x = torch.cat([torch.randn(n // 2, 2, generator=g) + 2, torch.randn(n // 2, 2, generator=g) - 2])
    y = torch.cat([torch.zeros(n // 2, dtype=torch.long), torch.ones(n // 2, dtype=torch.long)])
    return x, y


def _loader(x, y, batch_size=8, shuffle=False):
    return DataLoader(
        TensorDataset(x, y), batch_size=batch_size, shuffle=shuffle, generator=torch.Generator().manual_seed(1)
    )


def _model():
    torch.manual_seed(0)
    return Probe()


def _train_epoch(model, loader, loss_fn, optimizer):
    import user_code

    fn = getattr(user_code, "train_epoch", None)
    if not callable(fn):
        return None, "`train_epoch` is not defined as a function."
    try:
        value = fn(model, loader, loss_fn, optimizer)
    except Exception as exc:
        return None, f"`train_epoch` raised {type(exc).__name__}: {exc}"
    if not isinstance(value, float):
        return None, f"`train_epoch` must return the mean loss as a Python float, not {type(value).__name__}."
    return value, None


class TestTrainEpoch(unittest.TestCase):
    def test_train_mode(self):
        x, y = _blobs()
        model = _model()
        model.eval()  # as left behind by an evaluation
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        _, problem = _train_epoch(model, _loader(x, y), nn.CrossEntropyLoss(), optimizer)
        if problem is None and not model.seen:
            problem = "`train_epoch` never called the model: run `model(xb)` on every batch of the loader."
        ok = problem is None and all(model.seen)
        _report(
            self,
            ok,
            "`train_epoch` switches the model to training mode before its forward passes.",
            problem or "The model was left in eval mode by an evaluation and `train_epoch` trained it that way: "
            "call `model.train()` at the start, so dropout and batch norm behave as in training.",
        )

    def test_mean_over_samples(self):
        x, y = _blobs(42)  # batches of 8, 8, 8, 8, 8 and 2
        model = _model()
        with torch.no_grad():
            expected = nn.CrossEntropyLoss()(model(x), y).item()
        model.seen.clear()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.0)  # lr 0: the model stays fixed
        value, problem = _train_epoch(model, _loader(x, y), nn.CrossEntropyLoss(), optimizer)
        ok = problem is None and abs(value - expected) < 1e-5
        _report(
            self,
            ok,
            "The returned loss is the mean over all samples, with the small last batch weighted by its size.",
            problem or f"With a learning rate of 0 the model never changes, so the epoch's mean loss must equal the "
            f"loss over all 42 samples ({expected:.5f}); got {value}. Add `loss.item() * batch_size` per batch and "
            "divide by the number of samples, instead of averaging the batch losses.",
        )

    def test_one_clean_step_per_batch(self):
        x, y = _blobs()
        model = _model()
        twin = copy.deepcopy(model)
        loss_fn = nn.CrossEntropyLoss()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        _, problem = _train_epoch(model, _loader(x, y), loss_fn, optimizer)
        ok = problem is None
        if ok:
            twin.train()
            reference = torch.optim.SGD(twin.parameters(), lr=0.1)
            for xb, yb in _loader(x, y):
                reference.zero_grad()
                loss_fn(twin(xb), yb).backward()
                reference.step()
            ok = all(torch.allclose(a, b, atol=1e-5) for a, b in zip(model.parameters(), twin.parameters(), strict=True))
        _report(
            self,
            ok,
            "Each batch takes exactly one optimizer step on fresh gradients.",
            problem or "After one epoch the weights differ from plain SGD: for every batch call "
            "`optimizer.zero_grad()`, compute the loss, `loss.backward()`, then `optimizer.step()`.",
        )

    def test_learns(self):
        x, y = _blobs(64)
        model = _model()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        losses, problem = [], None
        for _ in range(5):
            value, problem = _train_epoch(model, _loader(x, y, shuffle=True), nn.CrossEntropyLoss(), optimizer)
            if problem:
                break
            losses.append(value)
        ok = problem is None
        if ok:
            with torch.no_grad():
                accuracy = (model(x).argmax(dim=1) == y).float().mean().item()
            ok = losses[-1] < losses[0] and accuracy >= 0.95
        _report(
            self,
            ok,
            "Five epochs separate two blobs of points: the loss falls and accuracy reaches at least 95%.",
            problem or "After five epochs the loss should fall and the model should classify at least 95% of two "
            "well-separated blobs correctly; check the order zero_grad, forward, loss, backward, step.",
        )


if __name__ == "__main__":
    unittest.main()
