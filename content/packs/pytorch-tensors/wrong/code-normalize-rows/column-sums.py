import torch


def normalize_rows(m):
    return m / m.sum(dim=0, keepdim=True)
