import math
import unittest

import torch


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _inputs(b=2, lq=3, lk=5, d=16):
    g = torch.Generator().manual_seed(0)
    return torch.randn(b, lq, d, generator=g), torch.randn(b, lk, d, generator=g)


def _reference(q, k):
    return torch.softmax(q @ k.transpose(1, 2) / math.sqrt(q.shape[-1]), dim=-1)


def _call(q, k):
    import user_code

    fn = getattr(user_code, "attention_weights", None)
    if not callable(fn):
        return None, "`attention_weights` is not defined as a function."
    try:
        out = fn(q, k)
    except Exception as exc:
        return None, f"`attention_weights` raised {type(exc).__name__}: {exc}"
    if not isinstance(out, torch.Tensor):
        return None, f"`attention_weights` must return a tensor, not {type(out).__name__}."
    return out, None


class TestAttentionWeights(unittest.TestCase):
    def test_shape(self):
        q, k = _inputs()
        out, problem = _call(q, k)
        ok = problem is None and out.shape == (2, 3, 5)
        _report(self, ok, "With 3 queries and 5 keys the result has shape (B, 3, 5).",
                problem or f"Expected (2, 3, 5): one row per query and one column per key; got {tuple(out.shape)}.")

    def test_rows_sum_to_one(self):
        q, k = _inputs()
        out, problem = _call(q, k)
        ok = problem is None and out.shape == (2, 3, 5) and torch.allclose(out.sum(dim=-1), torch.ones(2, 3), atol=1e-5)
        _report(self, ok, "Each query's weights over the keys sum to 1.",
                problem or "The weights of each query (over the last dimension, the keys) must sum to 1: apply "
                "the softmax with `dim=-1`.")

    def test_scaled(self):
        q, k = _inputs(d=64)
        out, problem = _call(q, k)
        ok = problem is None and out.shape == (2, 3, 5) and torch.allclose(out, _reference(q, k), atol=1e-5)
        _report(self, ok, "The scores are divided by sqrt(D) before the softmax and match the reference.",
                problem or "The weights differ from softmax(q · kᵀ / sqrt(D)) over the keys: check the scaling by "
                "`math.sqrt(q.shape[-1])` and the dimension of the softmax.")

    def test_batches_independent(self):
        q, k = _inputs(b=3)
        out, problem = _call(q, k)
        ok = False
        if problem is None:
            try:
                single, problem = _call(q[1:2], k[1:2])
                ok = problem is None and torch.allclose(out[1:2], single, atol=1e-5)
            except Exception as exc:
                problem = f"Comparing batch items raised {type(exc).__name__}: {exc}"
        _report(self, ok, "Each batch item attends only to its own keys.",
                problem or "Batch item 1 computed alone gives different weights than inside the batch: keep the "
                "batch dimension separate (`bqd,bkd->bqk`), do not sum over it.")


if __name__ == "__main__":
    unittest.main()
