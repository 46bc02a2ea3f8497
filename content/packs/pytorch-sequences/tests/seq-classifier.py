import unittest

import torch
from torch import nn


def _report(test, ok, success, failure):
    """Name the test after the sentence the learner should read, then pass or fail."""
    test._testMethodName = success if ok else failure
    if not ok:
        test.fail(failure)


def _make():
    import user_code

    cls = getattr(user_code, "SequenceClassifier", None)
    if cls is None:
        return None, "`SequenceClassifier` is not defined."
    try:
        torch.manual_seed(0)
        return cls(30, 8, 12, 3), None
    except Exception as exc:
        return None, f"`SequenceClassifier(30, 8, 12, 3)` raised {type(exc).__name__}: {exc}"


def _batch():
    ids = torch.tensor(
        [
            [4, 9, 2, 0, 0, 0],
            [7, 3, 3, 8, 1, 5],
            [6, 0, 0, 0, 0, 0],
            [2, 2, 11, 29, 0, 0],
        ]
    )
    return ids, torch.tensor([3, 6, 1, 4])


def _run(model, ids, lengths):
    try:
        with torch.no_grad():
            return model(ids, lengths), None
    except Exception as exc:
        return None, f"Calling the model raised {type(exc).__name__}: {exc}"


def _find(model, kind):
    found = [m for m in model.modules() if isinstance(m, kind)]
    return found[0] if len(found) == 1 else None


class TestClassifier(unittest.TestCase):
    def test_shape(self):
        model, problem = _make()
        out = None
        if problem is None:
            out, problem = _run(model, *_batch())
        ok = problem is None and isinstance(out, torch.Tensor) and out.shape == (4, 3)
        _report(
            self,
            ok,
            "The model returns `(N, num_classes)` logits.",
            problem or "`forward(ids, lengths)` must return one row of `num_classes` logits per sentence.",
        )

    def test_padding_row(self):
        model, problem = _make()
        emb = _find(model, nn.Embedding) if problem is None else None
        if problem is None and emb is None:
            problem = "The model should contain exactly one `nn.Embedding`."
        ok = problem is None and emb.padding_idx == 0 and torch.equal(emb.weight[0], torch.zeros(8))
        _report(
            self,
            ok,
            "The embedding's padding row (id 0) is zero and not trained.",
            problem or "Create the embedding with `padding_idx=0`, so that id 0 maps to a zero vector that never moves.",
        )

    def test_padding_does_not_matter(self):
        model, problem = _make()
        ids, lengths = _batch()
        a = b = None
        if problem is None:
            a, problem = _run(model, ids, lengths)
        if problem is None:
            b, problem = _run(model, torch.cat([ids, torch.zeros(4, 5, dtype=torch.long)], dim=1), lengths)
        ok = problem is None and isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape
        ok = ok and torch.allclose(a, b, atol=1e-6)
        _report(
            self,
            ok,
            "Extra padding columns do not change the logits.",
            problem or "With five more padding columns the logits changed, so the LSTM is reading the padding. Pack the "
            "embedded batch with `pack_padded_sequence(..., lengths, batch_first=True, enforce_sorted=False)` and use "
            "the final hidden state.",
        )

    def test_final_state_of_each_sentence(self):
        model, problem = _make()
        ok = False
        if problem is None:
            emb, lstm, head = _find(model, nn.Embedding), _find(model, nn.LSTM), _find(model, nn.Linear)
            if emb is None or lstm is None or head is None:
                problem = "The model should contain one `nn.Embedding`, one `nn.LSTM` and one `nn.Linear`."
            elif not lstm.batch_first:
                problem = "Create the LSTM with `batch_first=True`: the ids come as `(N, L)`."
            else:
                ids, lengths = _batch()
                out, problem = _run(model, ids, lengths)
                if problem is None:
                    with torch.no_grad():
                        rows = []
                        for i, n in enumerate(lengths.tolist()):
                            _, (h, _) = lstm(emb(ids[i : i + 1, :n]))
                            rows.append(head(h[-1])[0])
                    ok = isinstance(out, torch.Tensor) and out.shape == (4, 3)
                    ok = ok and torch.allclose(out, torch.stack(rows), atol=1e-5)
        _report(
            self,
            ok,
            "Each sentence's logits come from the LSTM's state after its last real token, whatever the order of the lengths.",
            problem or "The logits differ from running each sentence alone through your embedding, LSTM and linear layer. "
            "Use the final hidden state `h_n[-1]` of the packed batch, and keep the batch in its original order.",
        )


if __name__ == "__main__":
    unittest.main()
