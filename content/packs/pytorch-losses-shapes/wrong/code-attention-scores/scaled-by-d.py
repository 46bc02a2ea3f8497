import torch


def attention_weights(q, k):
    scores = torch.einsum("bqd,bkd->bqk", q, k) / q.shape[-1]
    return torch.softmax(scores, dim=-1)
