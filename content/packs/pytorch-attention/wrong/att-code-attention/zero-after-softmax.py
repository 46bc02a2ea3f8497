import torch


def attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    weights = scores.softmax(dim=-1)
    if mask is not None:
        weights = weights * mask
    return weights @ v, weights
