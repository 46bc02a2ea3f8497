import torch


def accumulate(w, chunks):
    w.grad = None
    for x, y in chunks:
        loss = ((x @ w - y) ** 2).mean()
        loss.backward()
    return w.grad
