import torch


def dataset_mean(loader):
    total = 0.0
    count = 0
    for xb, _ in loader:
        total += xb.sum()
        count += xb.numel()
    return total / count
