import torch


def normalize_rows(m):
    m /= m.sum(dim=1, keepdim=True)
    return m
