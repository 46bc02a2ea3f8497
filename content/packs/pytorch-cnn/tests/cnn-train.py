import copy
import unittest

import torch
import torch.nn.functional as F
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


class BarsCNN(nn.Module):
    """A small CNN for 1 × 8 × 8 images, with dropout so that the training mode matters."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(4, 8, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.drop = nn.Dropout(0.25)
        self.head = nn.Linear(8 * 2 * 2, 2)

    def forward(self, x):
        return self.head(self.drop(self.features(x).flatten(1)))


def _bars(n, seed):
    """Noisy 8 × 8 images with one bright bar: horizontal (class 0) or vertical (class 1)."""
    g = torch.Generator().manual_seed(seed)
    images = torch.rand(n, 1, 8, 8, generator=g) * 0.4
    labels = torch.randint(0, 2, (n,), generator=g)
    where = torch.randint(1, 7, (n,), generator=g)
    for i in range(n):
        if labels[i] == 0:
            images[i, 0, where[i], 1:7] = 1.0
        else:
            images[i, 0, 1:7, where[i]] = 1.0
    return images, labels


def _reference(model, images, labels, epochs, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    model.train()
    losses = []
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


_RUN = {}


def _runs():
    if not _RUN:
        import user_code

        images, labels = _bars(80, 1)
        torch.manual_seed(0)
        start = BarsCNN()
        start.eval()  # left in eval mode, as after a validation pass
        reference = copy.deepcopy(start)
        torch.manual_seed(5)
        _RUN["expected"] = _reference(reference, images, labels, 30, 0.1)
        _RUN["reference"] = reference
        model = copy.deepcopy(start)
        fn = getattr(user_code, "train", None)
        _RUN["model"] = model
        if not callable(fn):
            _RUN["problem"] = "`train` is not defined as a function."
            return _RUN
        torch.manual_seed(5)
        try:
            _RUN["losses"] = fn(model, images, labels, 30, 0.1)
            _RUN["problem"] = None
        except Exception as exc:
            _RUN["problem"] = f"`train` raised {type(exc).__name__}: {exc}"
    return _RUN


class TestTrain(unittest.TestCase):
    def test_losses(self):
        run = _runs()
        losses, problem = run.get("losses"), run["problem"]
        ok = problem is None and isinstance(losses, list) and len(losses) == 30
        ok = ok and all(type(v) is float for v in losses)
        ok = ok and all(abs(a - b) < 1e-4 for a, b in zip(losses, run["expected"]))
        _report(
            self,
            ok,
            "`train` returns the 30 full-batch losses as Python floats, matching the reference run.",
            problem or "Return a list with one `loss.item()` per step (30 here), each computed on the whole batch "
            "with `F.cross_entropy(model(images), labels)` before the step.",
        )

    def test_weights(self):
        run = _runs()
        problem = run["problem"]
        ok = problem is None and all(
            torch.allclose(a, b, atol=1e-4) for a, b in zip(run["model"].parameters(), run["reference"].parameters())
        )
        _report(
            self,
            ok,
            "The trained weights match SGD with momentum 0.9 run in training mode.",
            problem or "The weights differ from the reference: put the model in training mode (it arrives in eval mode), "
            "use `torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)`, and call `zero_grad`, `backward` and "
            "`step` once per epoch.",
        )

    def test_learns(self):
        run = _runs()
        problem = run["problem"]
        accuracy = None
        if problem is None:
            images, labels = _bars(200, 2)
            model = run["model"]
            model.eval()
            with torch.no_grad():
                accuracy = (model(images).argmax(dim=1) == labels).float().mean().item()
        _report(
            self,
            problem is None and accuracy > 0.9,
            "The trained CNN tells horizontal from vertical bars on new images (over 90% accuracy).",
            problem or f"Accuracy on new images is {accuracy:.2f}; check the training loop.",
        )


if __name__ == "__main__":
    unittest.main()
