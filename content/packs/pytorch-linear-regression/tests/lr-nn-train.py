import copy
import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _line_data():
    x = torch.linspace(0, 1, 32).unsqueeze(1)
    return x, 2 * x + 1


def _reference(model, x, y, lr, epochs):
    loss_fn = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return losses


def _train(model, x, y, lr, epochs):
    """Run the learner's train; return (losses, problem text or None)."""
    import user_code

    train = getattr(user_code, "train", None)
    if not callable(train):
        return None, "`train` is not defined as a function."
    try:
        losses = train(model, x, y, lr, epochs)
    except Exception as exc:
        return None, f"`train` raised {type(exc).__name__}: {exc}"
    if not isinstance(losses, list):
        return None, "`train` must return the list of losses."
    return losses, None


class TestTrain(unittest.TestCase):
    def test_losses_are_floats(self):
        torch.manual_seed(0)
        x, y = _line_data()
        losses, problem = _train(nn.Linear(1, 1), x, y, 0.1, 5)
        ok = problem is None and len(losses) == 5 and all(isinstance(v, float) for v in losses)
        _report(
            self,
            ok,
            "`train` returns one plain float per epoch.",
            problem or "`train` must return a list with one Python float per epoch: append `loss.item()`, "
            "not the loss tensor (a stored tensor also keeps its whole graph alive).",
        )

    def test_model_trained_in_place(self):
        torch.manual_seed(0)
        x, y = _line_data()
        model = nn.Linear(1, 1)
        before = copy.deepcopy(model.state_dict())
        losses, problem = _train(model, x, y, 0.1, 20)
        ok = problem is None and not torch.equal(before["weight"], model.weight.detach())
        ok = ok and len(losses) == 20 and float(losses[-1]) < float(losses[0])
        _report(
            self,
            ok,
            "`train` updates the model it was given, and the loss goes down.",
            problem or "After `train(model, ...)` the model's own weight must have changed and the last loss must "
            "be below the first: build the optimizer from `model.parameters()` and call `optimizer.step()`.",
        )

    def test_matches_plain_sgd(self):
        torch.manual_seed(1)
        x, y = _line_data()
        model = nn.Linear(1, 1)
        twin = copy.deepcopy(model)
        losses, problem = _train(model, x, y, 0.2, 25)
        ok = problem is None
        if ok:
            expected = _reference(twin, x, y, 0.2, 25)
            ok = (
                len(losses) == 25
                and torch.allclose(model.weight.detach(), twin.weight.detach(), atol=1e-5)
                and torch.allclose(model.bias.detach(), twin.bias.detach(), atol=1e-5)
                and torch.allclose(torch.tensor([float(v) for v in losses]), torch.tensor(expected), atol=1e-4)
            )
        _report(
            self,
            ok,
            "Every epoch is one clean SGD step on the mean squared error.",
            problem or "The weights drift away from plain SGD: call `optimizer.zero_grad()` every epoch (before "
            "`backward()`), use `nn.MSELoss()` (mean, not sum), and pass `lr` to `torch.optim.SGD`.",
        )

    def test_fits_three_features(self):
        torch.manual_seed(0)
        x = torch.randn(64, 3)
        y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3
        model = nn.Linear(3, 1)
        losses, problem = _train(model, x, y, 0.1, 150)
        ok = problem is None and len(losses) == 150
        ok = ok and torch.allclose(model.weight.detach(), torch.tensor([[1.0, -2.0, 0.5]]), atol=1e-2)
        ok = ok and torch.allclose(model.bias.detach(), torch.tensor([0.3]), atol=1e-2)
        _report(
            self,
            ok,
            "The same `train` recovers a three-feature line (w = [1, -2, 0.5], b = 0.3).",
            problem or "With `nn.Linear(3, 1)` and 150 epochs at lr 0.1, `train` should recover weights "
            "[1, -2, 0.5] and bias 0.3: clear the gradients every epoch, and make sure nothing in `train` "
            "assumes a single feature.",
        )


if __name__ == "__main__":
    unittest.main()
