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
    """Predicts class 1 when the first feature is positive; records the mode it ran in."""

    def __init__(self):
        super().__init__()
        self.dropout = nn.Dropout(p=0.5)
        self.seen = []

    def forward(self, x):
        self.seen.append((self.training, torch.is_grad_enabled()))
        logits = torch.stack([-x[:, 0], x[:, 0]], dim=1)
        return self.dropout(logits)


def _data():
    # predictions (sign of the first feature): 1,1,0,0 | 1,0,1,0 | 1,1 ; labels chosen so that
    # batch accuracies are 1.0, 0.5, 0.0 while 6 of the 10 samples are right.
    x = torch.tensor([[1.0], [2.0], [-1.0], [-2.0], [3.0], [-3.0], [4.0], [-4.0], [5.0], [6.0]])
    y = torch.tensor([1, 1, 0, 0, 1, 0, 0, 1, 0, 0])
    return x, y


def _call(name, *args):
    import user_code

    fn = getattr(user_code, name, None)
    if not callable(fn):
        return None, f"`{name}` is not defined as a function."
    try:
        return fn(*args), None
    except Exception as exc:
        return None, f"`{name}` raised {type(exc).__name__}: {exc}"


class TestEvaluate(unittest.TestCase):
    def test_accuracy(self):
        logits = torch.tensor([[2.0, 0.5], [0.1, 1.0], [1.5, 1.6], [3.0, -1.0]])
        labels = torch.tensor([0, 1, 0, 0])
        value, problem = _call("accuracy", logits, labels)
        ok = problem is None and isinstance(value, float) and abs(value - 0.75) < 1e-6
        _report(
            self,
            ok,
            "`accuracy` returns the fraction of rows whose largest logit is at the label, as a float.",
            problem or "`accuracy(logits, labels)` must return a Python float: the share of rows where "
            "`logits.argmax(dim=1)` equals the label (0.75 for the test batch). Use `.item()` at the end.",
        )

    def test_eval_mode(self):
        x, y = _data()
        model = Probe()
        model.train()
        _, problem = _call("evaluate", model, DataLoader(TensorDataset(x, y), batch_size=4))
        if problem is None and not model.seen:
            problem = "`evaluate` never called the model: run `model(xb)` on every batch of the loader."
        ok = problem is None and all(not training for training, _ in model.seen)
        _report(
            self,
            ok,
            "`evaluate` runs the model in eval mode (dropout off).",
            problem or "Call `model.eval()` before the loop: the model ran with `training=True`, so its dropout was "
            "still zeroing activations.",
        )

    def test_no_grad(self):
        x, y = _data()
        model = Probe()
        _, problem = _call("evaluate", model, DataLoader(TensorDataset(x, y), batch_size=4))
        if problem is None and not model.seen:
            problem = "`evaluate` never called the model: run `model(xb)` on every batch of the loader."
        ok = problem is None and all(not grad for _, grad in model.seen)
        _report(
            self,
            ok,
            "`evaluate` runs the forward passes with gradient tracking off.",
            problem or "Wrap the loop in `with torch.no_grad():` so no graph is built during evaluation.",
        )

    def test_every_sample_counts_once(self):
        x, y = _data()
        torch.manual_seed(0)
        value, problem = _call("evaluate", Probe(), DataLoader(TensorDataset(x, y), batch_size=4))
        ok = problem is None and isinstance(value, float) and abs(value - 0.6) < 1e-6
        _report(
            self,
            ok,
            "`evaluate` counts correct samples over the whole loader (0.6 here), whatever the batch sizes.",
            problem or "Over 10 samples in batches of 4, 4 and 2, 6 predictions are right, so `evaluate` must return "
            "0.6 as a float. Count correct predictions and samples across batches and divide once; the mean of the "
            "batch accuracies (0.5 here) over-weights the last batch.",
        )


if __name__ == "__main__":
    unittest.main()
