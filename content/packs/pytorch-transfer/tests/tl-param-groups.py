import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


class Pretrained(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(3, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 8))
        self.classifier = nn.Linear(8, 2)


def _make():
    import user_code

    fn = getattr(user_code, "make_optimizer", None)
    if not callable(fn):
        return None, None, "`make_optimizer` is not defined as a function."
    torch.manual_seed(0)
    model = Pretrained()
    try:
        return model, fn(model, 1e-4, 1e-2), None
    except Exception as exc:
        return None, None, f"`make_optimizer` raised {type(exc).__name__}: {exc}"


class TestParamGroups(unittest.TestCase):
    def test_adamw(self):
        _, optimizer, problem = _make()
        ok = problem is None and type(optimizer) is torch.optim.AdamW
        _report(
            self,
            ok,
            "`make_optimizer` returns a `torch.optim.AdamW`.",
            problem or f"Expected a `torch.optim.AdamW`, got {type(optimizer).__name__}.",
        )

    def test_groups(self):
        model, optimizer, problem = _make()
        ok = False
        if problem is None:
            groups = getattr(optimizer, "param_groups", None) or []
            ids = [[id(p) for p in g["params"]] for g in groups]
            ok = len(groups) == 2
            ok = ok and sorted(ids[0]) == sorted(id(p) for p in model.features.parameters())
            ok = ok and sorted(ids[1]) == sorted(id(p) for p in model.classifier.parameters())
            ok = ok and groups[0]["lr"] == 1e-4 and groups[1]["lr"] == 1e-2
            ok = ok and all(g.get("weight_decay") == 0.01 for g in groups)
        _report(
            self,
            ok,
            "Two groups: the backbone at `backbone_lr`, then the head at `head_lr`, both with weight decay 0.01.",
            problem or "Pass a list of two dictionaries: `{'params': model.features.parameters(), 'lr': backbone_lr}` "
            "first, then the head's with `head_lr`, and `weight_decay=0.01` for both.",
        )

    def test_decoupled_decay(self):
        model, optimizer, problem = _make()
        ok = False
        if problem is None and hasattr(optimizer, "step"):
            head = model.classifier.weight
            before = head.detach().clone()
            for p in model.parameters():
                p.grad = torch.zeros_like(p)
            try:
                optimizer.step()
                ok = torch.allclose(head.detach(), before * (1 - 1e-2 * 0.01), atol=1e-9)
            except Exception as exc:
                problem = f"`optimizer.step()` raised {type(exc).__name__}: {exc}"
        _report(
            self,
            ok,
            "With zero gradients one step shrinks the head's weights by `lr · weight_decay`, as AdamW does.",
            problem or "A step with zero gradients should multiply the head's weights by (1 - 0.01 · 0.01): use "
            "`torch.optim.AdamW` with `weight_decay=0.01`, the head's group at `head_lr`.",
        )


if __name__ == "__main__":
    unittest.main()
