import unittest

import torch
import torch.nn.functional as F
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


class Pretrained(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(2, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU())
        self.classifier = nn.Linear(16, 4)

    def forward(self, x):
        return self.classifier(self.features(x))


def _quadrants(n, seed, shift=0.0, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 2, generator=g) * scale + shift
    quadrant = (x[:, 0] - shift > 0).long() * 2 + (x[:, 1] - shift > 0).long()
    return x, quadrant


_PRETRAINED = None


def _pretrained():
    """A model trained on the 4-quadrant task (seeded), returned as a fresh copy each time."""
    global _PRETRAINED
    if _PRETRAINED is None:
        torch.manual_seed(0)
        model = Pretrained()
        x, y = _quadrants(400, 1)
        optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
        model.train()
        for _ in range(150):
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        _PRETRAINED = model.state_dict()
    model = Pretrained()
    model.load_state_dict(_PRETRAINED)
    return model


def _new_task(n, seed):
    """Left or right half-plane, on data shifted and stretched away from the pretraining data."""
    x, _ = _quadrants(n, seed, shift=0.5, scale=2.0)
    return x, (x[:, 0] > 0.5).long()


_RESULT = {}


def _fine_tuned():
    if "value" not in _RESULT:
        import user_code

        fn = getattr(user_code, "fine_tune", None)
        model = _pretrained()
        before = {k: v.clone() for k, v in model.features.state_dict().items()}
        if not callable(fn):
            _RESULT["value"] = (None, before, "`fine_tune` is not defined as a function.")
        else:
            x, y = _new_task(300, 2)
            try:
                result = fn(model, x, y, 100)
                if isinstance(result, nn.Module):
                    _RESULT["training"] = [m.training for m in result.modules()]
                _RESULT["value"] = (result, before, None if isinstance(result, nn.Module) else "`fine_tune` must return the model.")
            except Exception as exc:
                _RESULT["value"] = (None, before, f"`fine_tune` raised {type(exc).__name__}: {exc}")
    return _RESULT["value"]


class TestFineTune(unittest.TestCase):
    def test_new_head(self):
        model, _, problem = _fine_tuned()
        ok = problem is None and model(torch.randn(3, 2)).shape == (3, 2)
        _report(
            self,
            ok,
            "The fine-tuned model outputs 2 class scores.",
            problem or "Replace `model.classifier` with `nn.Linear(model.classifier.in_features, 2)`.",
        )

    def test_backbone_parameters_kept(self):
        model, before, problem = _fine_tuned()
        ok = False
        if problem is None:
            after = model.features.state_dict()
            ok = all(torch.equal(after[k], before[k]) for k in before if not k.split(".")[-1].startswith(("running", "num_batches")))
        _report(
            self,
            ok,
            "The backbone's weights are exactly the pretrained ones.",
            problem or "The backbone's weights changed: freeze it with `model.features.requires_grad_(False)` and train "
            "only the new head.",
        )

    def test_batchnorm_statistics_kept(self):
        model, before, problem = _fine_tuned()
        ok = False
        if problem is None:
            after = model.features.state_dict()
            ok = set(after) == set(before) and all(torch.equal(after[k], before[k]) for k in before)
        _report(
            self,
            ok,
            "The backbone's batch-norm running statistics are unchanged.",
            problem or "The batch-norm running mean and variance moved during fine-tuning. Frozen parameters do not stop "
            "that: keep the backbone in eval mode (`model.features.eval()` after `model.train()`).",
        )

    def test_eval_mode(self):
        model, _, problem = _fine_tuned()
        ok = problem is None and not any(_RESULT.get("training", [True]))
        _report(
            self,
            ok,
            "The model is returned in eval mode.",
            problem or "Return `model.eval()` so that the caller gets a model ready for inference.",
        )

    def test_accuracy(self):
        model, _, problem = _fine_tuned()
        accuracy = None
        if problem is None:
            x, y = _new_task(500, 3)
            model.eval()
            with torch.no_grad():
                accuracy = (model(x).argmax(dim=1) == y).float().mean().item()
        ok = problem is None and accuracy > 0.9
        _report(
            self,
            ok,
            "The new head learnt the new task (over 90% accuracy on new data).",
            problem or f"Accuracy on new data is {accuracy:.2f}; train the head with Adam (lr 0.05) on the full-batch "
            "cross-entropy for `epochs` steps, calling `zero_grad`, `backward` and `step` each time.",
        )


if __name__ == "__main__":
    unittest.main()
