import torch


def normalize_rows(m):
    return m / m.sum(dim=1)
