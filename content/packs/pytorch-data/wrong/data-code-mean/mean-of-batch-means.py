import torch


def dataset_mean(loader):
    means = [xb.mean(dim=0) for xb, _ in loader]
    return torch.stack(means).mean(dim=0)
