import unittest

import torch
import torch.nn.functional as F


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _call(*args, **kwargs):
    import user_code

    fn = getattr(user_code, "attention", None)
    if not callable(fn):
        return None, "`attention` is not defined as a function."
    try:
        result = fn(*args, **kwargs)
    except Exception as exc:
        return None, f"`attention` raised {type(exc).__name__}: {exc}"
    if not (isinstance(result, tuple) and len(result) == 2 and all(isinstance(t, torch.Tensor) for t in result)):
        return None, "`attention` must return a pair of tensors `(out, weights)`."
    return result, None


def _qkv(seed, lq=4, lk=6, d=8, dv=5):
    g = torch.Generator().manual_seed(seed)
    return (
        torch.randn(2, 3, lq, d, generator=g) * 2,
        torch.randn(2, 3, lk, d, generator=g) * 2,
        torch.randn(2, 3, lk, dv, generator=g),
    )


class TestAttention(unittest.TestCase):
    def test_no_mask(self):
        q, k, v = _qkv(0)
        result, problem = _call(q, k, v)
        ok = problem is None and result[0].shape == (2, 3, 4, 5)
        ok = ok and torch.allclose(result[0], F.scaled_dot_product_attention(q, k, v), atol=1e-5)
        _report(
            self,
            ok,
            "Without a mask the output matches `F.scaled_dot_product_attention`.",
            problem or "The output differs from `softmax(q @ kᵀ / √d) @ v`: check the transpose of `k`, the scale "
            "(`√d` with `d = q.shape[-1]`) and that the softmax runs over the keys (`dim=-1`).",
        )

    def test_weights(self):
        q, k, v = _qkv(1)
        result, problem = _call(q, k, v)
        expected = (q @ k.transpose(-2, -1) / 8**0.5).softmax(dim=-1)
        ok = problem is None and result[1].shape == expected.shape and torch.allclose(result[1], expected, atol=1e-5)
        _report(
            self,
            ok,
            "The weights are the softmax of the scaled scores, one row per query summing to 1.",
            problem or "`weights` must be `(…, L_q, L_k)`: the softmax over the keys of the scaled scores.",
        )

    def test_mask(self):
        q, k, v = _qkv(2)
        g = torch.Generator().manual_seed(3)
        mask = torch.rand(2, 1, 4, 6, generator=g) > 0.5
        mask[..., 0] = True
        result, problem = _call(q, k, v, mask=mask)
        ok = problem is None and torch.allclose(
            result[0], F.scaled_dot_product_attention(q, k, v, attn_mask=mask), atol=1e-5
        )
        ok = ok and bool((result[1].masked_select(~mask.expand(2, 3, 4, 6)) == 0).all())
        ok = ok and torch.allclose(result[1].sum(dim=-1), torch.ones(2, 3, 4), atol=1e-5)
        _report(
            self,
            ok,
            "Forbidden keys get a weight of exactly 0, and each query's allowed weights still sum to 1.",
            problem or "With a mask, hide the forbidden scores before the softmax (`masked_fill(~mask, float('-inf'))`): "
            "`True` means the query may attend. Zeroing weights after the softmax, or filling scores with 0, gives "
            "different numbers.",
        )

    def test_gradients(self):
        q, k, v = (t.requires_grad_() for t in _qkv(4))
        result, problem = _call(q, k, v)
        ok = False
        if problem is None and result[0].requires_grad:
            result[0].sum().backward()
            ok = all(t.grad is not None and t.grad.abs().sum() > 0 for t in (q, k, v))
        _report(
            self,
            ok,
            "Gradients reach `q`, `k` and `v`.",
            problem or "Compute the output with tensor operations on `q`, `k` and `v` (no `.detach()` or `no_grad`), "
            "so that gradients flow to all three.",
        )


if __name__ == "__main__":
    unittest.main()
