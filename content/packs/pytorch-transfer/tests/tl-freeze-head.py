import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


class Pretrained(nn.Module):
    def __init__(self, width, classes=4):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(3, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.classifier = nn.Linear(width, classes)

    def forward(self, x):
        return self.classifier(self.features(x))


def _prepared(width, classes):
    import user_code

    fn = getattr(user_code, "prepare", None)
    if not callable(fn):
        return None, None, "`prepare` is not defined as a function."
    torch.manual_seed(width)
    model = Pretrained(width)
    before = {k: v.clone() for k, v in model.features.state_dict().items()}
    try:
        result = fn(model, classes)
    except Exception as exc:
        return None, None, f"`prepare` raised {type(exc).__name__}: {exc}"
    if result is not model:
        return None, None, "`prepare` must change the model in place and return it."
    return model, before, None


class TestPrepare(unittest.TestCase):
    def test_head(self):
        model, _, problem = _prepared(16, 3)
        head = getattr(model, "classifier", None)
        ok = problem is None and isinstance(head, nn.Linear) and head.in_features == 16 and head.out_features == 3
        ok = ok and model(torch.randn(5, 3)).shape == (5, 3)
        _report(
            self,
            ok,
            "The head is a new `nn.Linear` from the backbone's 16 features to 3 classes.",
            problem or "`model.classifier` must become `nn.Linear(model.classifier.in_features, num_classes)`.",
        )

    def test_other_width(self):
        model, _, problem = _prepared(24, 5)
        ok = problem is None and model(torch.randn(2, 3)).shape == (2, 5)
        _report(
            self,
            ok,
            "The new head's input size is read from the old head (24 here).",
            problem or "With a 24-wide backbone the model no longer runs: take the input size from "
            "`model.classifier.in_features` instead of a fixed number.",
        )

    def test_frozen_and_trainable(self):
        model, _, problem = _prepared(16, 3)
        ok = problem is None and all(not p.requires_grad for p in model.features.parameters())
        ok = ok and all(p.requires_grad for p in model.classifier.parameters())
        _report(
            self,
            ok,
            "Every backbone parameter is frozen and the new head is trainable.",
            problem or "After `prepare`, every parameter of `model.features` must have `requires_grad=False` and the "
            "head's parameters `requires_grad=True`. Freeze the backbone with `requires_grad_(False)` and do not "
            "freeze the new head.",
        )

    def test_backbone_untouched(self):
        model, before, problem = _prepared(16, 3)
        ok = False
        if problem is None:
            optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
            torch.manual_seed(1)
            nn.functional.cross_entropy(model(torch.randn(8, 3)), torch.randint(0, 3, (8,))).backward()
            optimizer.step()
            after = model.features.state_dict()
            ok = set(after) == set(before) and all(torch.equal(after[k], before[k]) for k in before)
        _report(
            self,
            ok,
            "A training step leaves the pretrained backbone exactly as it was.",
            problem or "After a training step the backbone's weights changed: its parameters must not receive "
            "gradients, and `prepare` must not re-initialise or replace the backbone.",
        )


if __name__ == "__main__":
    unittest.main()
