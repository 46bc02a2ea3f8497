import torch


def clip_negatives(x):
    return torch.where(x < 0, torch.zeros_like(x), x)
