import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1))

    def forward(self, x):
        return self.net(x)


def _setup():
    torch.manual_seed(0)
    critic = Critic()
    x = torch.randn(4, 2, 3)
    return critic, x


def _reference(critic, x):
    x = x.detach().requires_grad_(True)
    (g,) = torch.autograd.grad(critic(x).sum(), x, create_graph=True)
    return ((g.flatten(1).norm(dim=1) - 1) ** 2).mean()


def _call(critic, x):
    import user_code

    fn = getattr(user_code, "gradient_penalty", None)
    if not callable(fn):
        return None, "`gradient_penalty` is not defined as a function."
    try:
        out = fn(critic, x)
    except Exception as exc:
        return None, f"`gradient_penalty` raised {type(exc).__name__}: {exc}"
    if not isinstance(out, torch.Tensor) or out.dim() != 0:
        return None, "`gradient_penalty` must return a scalar tensor (0 dimensions)."
    return out, None


class TestGradientPenalty(unittest.TestCase):
    def test_value(self):
        critic, x = _setup()
        out, problem = _call(critic, x)
        expected = _reference(critic, x)
        ok = problem is None and torch.allclose(out.detach(), expected.detach(), atol=1e-5)
        _report(self, ok, "The penalty is the batch mean of (per-sample gradient norm - 1)².",
                problem or f"Expected {expected.item():.5f}, got {out.item():.5f}: take one L2 norm per sample over "
                "all its features (`g.flatten(1).norm(dim=1)`), then the mean of `(norm - 1) ** 2`.")

    def test_no_grad_written(self):
        critic, x = _setup()
        _, problem = _call(critic, x)
        ok = problem is None and all(p.grad is None for p in critic.parameters())
        _report(self, ok, "Computing the penalty writes into no `.grad`.",
                problem or "After `gradient_penalty` the critic's parameters have a `.grad`: use "
                "`torch.autograd.grad`, which returns the input gradient, instead of `backward()`.")

    def test_trains_critic(self):
        critic, x = _setup()
        out, problem = _call(critic, x)
        ok = False
        if problem is None:
            twin, _ = _setup()
            # the last bias does not change the input gradient, so its gradient is zero (or None)
            expected = torch.autograd.grad(
                _reference(twin, x), list(twin.parameters()), allow_unused=True, materialize_grads=True
            )
            try:
                out.backward()
                grads = [torch.zeros_like(p) if p.grad is None else p.grad for p in critic.parameters()]
                ok = critic.net[1].weight.grad is not None and all(
                    torch.allclose(a, b, atol=1e-5) for a, b in zip(grads, expected, strict=True)
                )
            except Exception as exc:
                problem = f"`penalty.backward()` raised {type(exc).__name__}: {exc}"
        _report(self, ok, "`penalty.backward()` gives the critic's weights the right gradients.",
                problem or "The penalty is not differentiable with respect to the critic's weights (or gives "
                "wrong gradients): pass `create_graph=True` to `torch.autograd.grad` so the input gradient "
                "stays connected to the weights.")

    def test_input_untouched(self):
        critic, x = _setup()
        before = x.clone()
        _, problem = _call(critic, x)
        ok = problem is None and not x.requires_grad and x.grad is None and torch.equal(x, before)
        _report(self, ok, "The input tensor passed in is left as it was.",
                problem or "`x` itself changed (it now requires grad or has a `.grad`): work on "
                "`x.detach().requires_grad_(True)`.")


if __name__ == "__main__":
    unittest.main()
