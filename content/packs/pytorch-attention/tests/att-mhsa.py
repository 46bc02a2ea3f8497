import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _make(E=12, H=3):
    import user_code

    cls = getattr(user_code, "SelfAttention", None)
    if cls is None:
        return None, "`SelfAttention` is not defined."
    try:
        torch.manual_seed(0)
        model = cls(E, H)
    except Exception as exc:
        return None, f"`SelfAttention({E}, {H})` raised {type(exc).__name__}: {exc}"
    qkv, out = getattr(model, "qkv", None), getattr(model, "out", None)
    if not isinstance(qkv, nn.Linear) or tuple(qkv.weight.shape) != (3 * E, E):
        return None, f"`self.qkv` must be `nn.Linear({E}, {3 * E})`."
    if not isinstance(out, nn.Linear) or tuple(out.weight.shape) != (E, E):
        return None, f"`self.out` must be `nn.Linear({E}, {E})`."
    return model, None


def _reference(model, E, H):
    mha = nn.MultiheadAttention(E, H, batch_first=True)
    with torch.no_grad():
        mha.in_proj_weight.copy_(model.qkv.weight)
        mha.in_proj_bias.copy_(model.qkv.bias)
        mha.out_proj.weight.copy_(model.out.weight)
        mha.out_proj.bias.copy_(model.out.bias)
    return mha


def _compare(causal, E=12, H=3, N=2, L=5):
    model, problem = _make(E, H)
    if problem is not None:
        return problem
    mha = _reference(model, E, H)
    torch.manual_seed(1)
    x = torch.randn(N, L, E)
    mask = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1) if causal else None
    with torch.no_grad():
        expected = mha(x, x, x, attn_mask=mask, need_weights=False)[0]
        try:
            got = model(x, causal=True) if causal else model(x)
        except Exception as exc:
            return f"Calling the module raised {type(exc).__name__}: {exc}"
    if not isinstance(got, torch.Tensor) or got.shape != (N, L, E):
        return f"The output must have shape {(N, L, E)}."
    if not torch.allclose(got, expected, atol=1e-5):
        return "different"
    return None


class TestSelfAttention(unittest.TestCase):
    def test_matches_mha(self):
        problem = _compare(causal=False)
        _report(
            self,
            problem is None,
            "Without `causal`, the module computes what `nn.MultiheadAttention` computes with the same weights.",
            "The output differs from `nn.MultiheadAttention` loaded with your weights. Split each of q, k, v with "
            "`view(N, L, H, D).transpose(1, 2)`, scale by `1/√D` (the head size), and merge with "
            "`transpose(1, 2).reshape(N, L, E)` before `self.out`."
            if problem == "different" else problem or "",
        )

    def test_causal(self):
        problem = _compare(causal=True)
        _report(
            self,
            problem is None,
            "With `causal=True` each token attends only to itself and earlier tokens.",
            "With `causal=True` the output differs from `nn.MultiheadAttention` with a causal mask: each query may "
            "see keys 0 to i (pass `is_causal=True` to `F.scaled_dot_product_attention`)."
            if problem == "different" else problem or "",
        )

    def test_other_sizes(self):
        problem = _compare(causal=False, E=16, H=2, N=3, L=4)
        _report(
            self,
            problem is None,
            "`embed_dim` and `num_heads` are taken from the arguments (16 and 2 here).",
            "With `SelfAttention(16, 2)` the output differs from `nn.MultiheadAttention(16, 2)`: compute the head size "
            "from the arguments, `D = embed_dim // num_heads`, and the sizes N and L from the input."
            if problem == "different" else problem or "",
        )


if __name__ == "__main__":
    unittest.main()
