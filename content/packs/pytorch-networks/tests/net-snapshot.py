import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))


def _train_a_bit(model):
    """Two SGD steps in training mode: changes weights and batch-norm running statistics."""
    torch.manual_seed(1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    model.train()
    for _ in range(2):
        optimizer.zero_grad()
        model(torch.randn(16, 3)).pow(2).mean().backward()
        optimizer.step()


def _call(name, *args):
    import user_code

    fn = getattr(user_code, name, None)
    if not callable(fn):
        return None, f"`{name}` is not defined as a function."
    try:
        return fn(*args), None
    except Exception as exc:
        return None, f"`{name}` raised {type(exc).__name__}: {exc}"


class TestSnapshot(unittest.TestCase):
    def test_snapshot_has_every_entry(self):
        model = _model()
        snap, problem = _call("snapshot", model)
        expected = set(model.state_dict().keys())
        ok = problem is None and isinstance(snap, dict) and set(snap.keys()) == expected
        _report(
            self,
            ok,
            "`snapshot` holds every entry of the state dict, buffers included.",
            problem or "`snapshot(model)` must return a dict with the same keys as `model.state_dict()`, including "
            f"batch-norm buffers: {sorted(expected)}.",
        )

    def test_snapshot_is_independent(self):
        model = _model()
        snap, problem = _call("snapshot", model)
        ok = False
        if problem is None and isinstance(snap, dict) and "0.weight" in snap:
            before = model.state_dict()["0.weight"].clone()
            _train_a_bit(model)
            ok = torch.equal(snap["0.weight"], before) and not torch.equal(snap["0.weight"], model[0].weight.detach())
        _report(
            self,
            ok,
            "The snapshot keeps the old values while the model goes on training.",
            problem or "The snapshot changed when the model was trained: `state_dict()` returns tensors that share "
            "memory with the model. Copy them, e.g. `copy.deepcopy(model.state_dict())` or "
            "`{k: v.clone() for k, v in model.state_dict().items()}`.",
        )

    def test_restore(self):
        model = _model()
        x = torch.randn(5, 3)
        snap, problem = _call("snapshot", model)
        ok = False
        if problem is None:
            model.eval()
            with torch.no_grad():
                expected = model(x)
            _train_a_bit(model)
            _, problem = _call("restore", model, snap)
            if problem is None:
                model.eval()
                with torch.no_grad():
                    ok = torch.allclose(model(x), expected, atol=1e-6)
                ok = ok and torch.equal(model[1].running_mean, snap["1.running_mean"])
        _report(
            self,
            ok,
            "`restore` brings back the weights and the batch-norm running statistics.",
            problem or "After training and `restore(model, snap)`, the model in eval mode must give the same outputs "
            "as when the snapshot was taken. `restore` should call `model.load_state_dict(snap)`; if it already "
            "does, the snapshot itself followed the training: make `snapshot` return a copy.",
        )

    def test_snapshot_survives_restore_and_training(self):
        model = _model()
        snap, problem = _call("snapshot", model)
        ok = False
        if problem is None:
            first = {k: v.clone() for k, v in snap.items()} if isinstance(snap, dict) else None
            _, problem = _call("restore", model, snap)
            if problem is None and first is not None:
                _train_a_bit(model)
                ok = all(torch.equal(snap[k], first[k]) for k in first)
        _report(
            self,
            ok,
            "One snapshot can be restored, trained from, and restored again.",
            problem or "After `restore(model, snap)` and more training, `snap` itself must be unchanged: "
            "`load_state_dict` copies values into the model, so keep the snapshot separate from the model's tensors.",
        )


if __name__ == "__main__":
    unittest.main()
