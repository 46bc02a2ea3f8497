import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _stripes(n, seed):
    """Float NCHW images in [0, 1], 3 × 8 × 12, each with one bright row or column:
    red in class 0, blue in class 1."""
    g = torch.Generator().manual_seed(seed)
    images = torch.rand(n, 3, 8, 12, generator=g) * 0.3
    labels = torch.randint(0, 2, (n,), generator=g)
    for i in range(n):
        channel = 0 if labels[i] == 0 else 2
        if torch.rand(1, generator=g).item() < 0.5:
            images[i, channel, torch.randint(0, 8, (1,), generator=g).item(), :] = 1.0
        else:
            images[i, channel, :, torch.randint(0, 12, (1,), generator=g).item()] = 1.0
    return images, labels


class Net(nn.Module):
    """A small CNN with dropout; records the mode, grad state, dtype, shape and range of every input."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, kernel_size=3, padding=1), nn.ReLU(), nn.AdaptiveMaxPool2d(1), nn.Flatten()
        )
        self.drop = nn.Dropout(0.9)
        self.head = nn.Linear(8, 2)
        self.seen = []

    def forward(self, x):
        self.seen.append((self.training, torch.is_grad_enabled(), x.dtype, tuple(x.shape), x.min().item(), x.max().item()))
        return self.head(self.drop(self.features(x)))


_TRAINED = None


def _trained():
    global _TRAINED
    if _TRAINED is None:
        torch.manual_seed(0)
        model = Net()
        images, labels = _stripes(200, 1)
        optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
        drop = model.drop
        model.drop = nn.Identity()
        for _ in range(60):
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(images), labels).backward()
            optimizer.step()
        model.drop = drop
        _TRAINED = model.state_dict()
    model = Net()
    model.load_state_dict(_TRAINED)
    model.train()
    return model


def _camera(images):
    return (images * 255).round().to(torch.uint8).permute(0, 2, 3, 1).contiguous()


def _predict(model, images):
    import user_code

    fn = getattr(user_code, "predict", None)
    if not callable(fn):
        return None, "`predict` is not defined as a function."
    try:
        return fn(model, images), None
    except Exception as exc:
        return None, f"`predict` raised {type(exc).__name__}: {exc}"


class TestPredict(unittest.TestCase):
    def test_output(self):
        images, _ = _stripes(10, 2)
        out, problem = _predict(_trained(), _camera(images))
        ok = problem is None and isinstance(out, torch.Tensor) and out.shape == (10,) and out.dtype == torch.int64
        _report(
            self,
            ok,
            "`predict` returns one int64 class index per image.",
            problem or "Return `logits.argmax(dim=1)`: an int64 tensor of shape `(N,)`"
            + (f", not {out.dtype} of shape {tuple(out.shape)}." if isinstance(out, torch.Tensor) else "."),
        )

    def test_input_converted(self):
        images, _ = _stripes(10, 3)
        model = _trained()
        _, problem = _predict(model, _camera(images))
        seen = model.seen
        if problem is None and not seen:
            problem = "`predict` never called the model."
        ok = problem is None and all(s[2] == torch.float32 and s[3] == (10, 3, 8, 12) for s in seen)
        ok = ok and all(0.0 <= s[4] and s[5] <= 1.0 for s in seen)
        _report(
            self,
            ok,
            "The model receives float32 images in NCHW layout with values in [0, 1].",
            problem or f"The model received dtype {seen[0][2]}, shape {seen[0][3]} and values from {seen[0][4]} to "
            f"{seen[0][5]}; it needs float32 `(N, 3, H, W)` (here `(10, 3, 8, 12)`) with values in [0, 1].",
        )

    def test_eval_no_grad(self):
        images, _ = _stripes(10, 4)
        model = _trained()
        _, problem = _predict(model, _camera(images))
        if problem is None and not model.seen:
            problem = "`predict` never called the model."
        ok = problem is None and all(not s[0] and not s[1] for s in model.seen)
        _report(
            self,
            ok,
            "The model runs in eval mode with gradient tracking off.",
            problem or "Call `model.eval()` (the dropout layer was still active, or gradients were tracked) and run "
            "the model inside `with torch.no_grad():`.",
        )

    def test_accuracy(self):
        images, labels = _stripes(200, 5)
        model = _trained()
        model.eval()
        with torch.no_grad():
            reference = model(images).argmax(dim=1)
        out, problem = _predict(_trained(), _camera(images))
        ok = problem is None and isinstance(out, torch.Tensor) and out.shape == labels.shape
        accuracy = (out == labels).float().mean().item() if ok else None
        ok = ok and torch.equal(out, reference) and accuracy > 0.9
        _report(
            self,
            ok,
            "On 200 new camera images the predictions match the model's on the original images.",
            problem or f"Your predictions reach an accuracy of {accuracy} and differ from the model's predictions on "
            "the original images. Reorder the dimensions with `permute(0, 3, 1, 2)` (not `view`/`reshape`, which "
            "scramble the pixels) and divide by 255 so that values lie in [0, 1].",
        )


if __name__ == "__main__":
    unittest.main()
