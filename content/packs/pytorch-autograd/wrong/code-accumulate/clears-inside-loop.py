import torch


def accumulate(w, chunks):
    total_rows = sum(x.shape[0] for x, _ in chunks)
    for x, y in chunks:
        w.grad = None
        loss = ((x @ w - y) ** 2).sum() / total_rows
        loss.backward()
    return w.grad
