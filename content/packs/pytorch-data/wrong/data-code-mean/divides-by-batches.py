import torch


def dataset_mean(loader):
    total = None
    batches = 0
    for xb, _ in loader:
        batch_sum = xb.sum(dim=0)
        total = batch_sum if total is None else total + batch_sum
        batches += 1
    return total / (batches * loader.batch_size)
