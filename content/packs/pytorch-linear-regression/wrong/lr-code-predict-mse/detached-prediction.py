import torch


def predict(x, w, b):
    return torch.tensor((w * x + b).tolist())


def mse(pred, target):
    return ((pred - target) ** 2).mean()
