import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(4, 8)
        self.norm = nn.LayerNorm(8)
        self.head = nn.Linear(8, 3)
        self.frozen = nn.Linear(3, 3)
        self.frozen.requires_grad_(False)

    def forward(self, x):
        return self.frozen(self.head(self.norm(self.embed(x))))


def _make(lr=0.1, weight_decay=0.5):
    import user_code

    torch.manual_seed(0)
    model = Net()
    fn = getattr(user_code, "make_optimizer", None)
    if not callable(fn):
        return model, None, "`make_optimizer` is not defined as a function."
    try:
        optimizer = fn(model, lr, weight_decay)
    except Exception as exc:
        return model, None, f"`make_optimizer` raised {type(exc).__name__}: {exc}"
    if not isinstance(optimizer, torch.optim.Optimizer):
        return model, None, f"`make_optimizer` must return an optimizer, not {type(optimizer).__name__}."
    return model, optimizer, None


def _names(model, params):
    lookup = {id(p): name for name, p in model.named_parameters()}
    return sorted(lookup.get(id(p), "?") for p in params)


class TestParamGroups(unittest.TestCase):
    def test_each_trainable_once(self):
        model, optimizer, problem = _make()
        ok = False
        if problem is None:
            seen = [p for group in optimizer.param_groups for p in group["params"]]
            expected = [p for p in model.parameters() if p.requires_grad]
            ok = len(seen) == len(expected) and {id(p) for p in seen} == {id(p) for p in expected}
            problem = None if ok else f"The optimizer holds {_names(model, seen)}; it should hold each of {_names(model, expected)} once (not the frozen layer)."
        _report(self, ok, "Every trainable parameter is in exactly one group, and frozen ones are left out.", problem or "")

    def test_groups_by_dimension(self):
        model, optimizer, problem = _make(weight_decay=0.5)
        ok = False
        if problem is None:
            decayed = [p for g in optimizer.param_groups if g.get("weight_decay", 0) == 0.5 for p in g["params"]]
            plain = [p for g in optimizer.param_groups if g.get("weight_decay", 0) == 0 for p in g["params"]]
            want_decay = [n for n, p in model.named_parameters() if p.requires_grad and p.ndim >= 2]
            want_plain = [n for n, p in model.named_parameters() if p.requires_grad and p.ndim < 2]
            ok = _names(model, decayed) == sorted(want_decay) and _names(model, plain) == sorted(want_plain)
            problem = None if ok else (
                f"Decayed: {_names(model, decayed)}, not decayed: {_names(model, plain)}. Expected weight decay 0.5 "
                f"on {sorted(want_decay)} and 0 on {sorted(want_plain)}: sort by `p.ndim`, not by name."
            )
        _report(self, ok, "Matrices get the weight decay; biases and LayerNorm parameters get none.", problem or "")

    def test_learning_rate(self):
        _, optimizer, problem = _make(lr=0.03)
        ok = problem is None and all(g["lr"] == 0.03 for g in optimizer.param_groups)
        _report(self, ok, "Every group uses the learning rate passed in.", problem or "Every parameter group must have `lr` equal to the `lr` argument.")

    def test_decoupled_decay(self):
        model, optimizer, problem = _make(lr=0.1, weight_decay=0.5)
        ok = False
        if problem is None:
            before = {n: p.detach().clone() for n, p in model.named_parameters()}
            for p in model.parameters():
                if p.requires_grad:
                    p.grad = torch.zeros_like(p)
            try:
                optimizer.step()
            except Exception as exc:
                problem = f"`optimizer.step()` raised {type(exc).__name__}: {exc}"
            if problem is None:
                ok = True
                for name, p in model.named_parameters():
                    if not p.requires_grad:
                        continue
                    factor = 1 - 0.1 * 0.5 if p.ndim >= 2 else 1.0
                    ok = ok and torch.allclose(p.detach(), before[name] * factor, atol=1e-6)
        _report(
            self,
            ok,
            "With zero gradients one step shrinks each matrix by exactly `lr * weight_decay` and leaves the rest alone (decoupled decay, AdamW).",
            problem or "With zero gradients, one step should multiply each weight matrix by 1 - lr · weight_decay = 0.95 "
            "and leave biases and LayerNorm parameters unchanged. Put only the matrices in the decayed group, and use AdamW: Adam adds the decay to the gradient and then "
            "normalises it away.",
        )

    def test_adamw_update(self):
        model, optimizer, problem = _make(lr=0.1, weight_decay=0.5)
        ok = False
        if problem is None:
            torch.manual_seed(1)
            reference = Net()
            reference.load_state_dict(model.state_dict())
            trainable = [(n, p) for n, p in reference.named_parameters() if p.requires_grad]
            expected = torch.optim.AdamW(
                [
                    {"params": [p for _, p in trainable if p.ndim >= 2], "weight_decay": 0.5},
                    {"params": [p for _, p in trainable if p.ndim < 2], "weight_decay": 0.0},
                ],
                lr=0.1,
            )
            grads = {n: torch.randn_like(p) for n, p in trainable}
            try:
                for _ in range(2):
                    for name, p in model.named_parameters():
                        if p.requires_grad:
                            p.grad = grads[name].clone()
                    optimizer.step()
                    for name, p in trainable:
                        p.grad = grads[name].clone()
                    expected.step()
            except Exception as exc:
                problem = f"`optimizer.step()` raised {type(exc).__name__}: {exc}"
            if problem is None:
                got = dict(model.named_parameters())
                ok = all(torch.allclose(got[n].detach(), p.detach(), atol=1e-6) for n, p in trainable)
        _report(
            self,
            ok,
            "With real gradients, two steps move the weights exactly as AdamW does.",
            problem or "With nonzero gradients the update differs from `torch.optim.AdamW`'s: SGD or Adam may match "
            "AdamW when the gradients are zero, but not here. Return a `torch.optim.AdamW` over the two groups.",
        )


if __name__ == "__main__":
    unittest.main()
