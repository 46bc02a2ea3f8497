import torch


def dataset_mean(loader):
    total = None
    count = 0
    for xb, _ in loader:
        batch_sum = xb.sum(dim=0)
        total = batch_sum if total is None else total + batch_sum
        count += xb.shape[0]
    return total / count
