import torch


def predict(x, w, b):
    return w * x + b


def mse(pred, target):
    return (pred - target).abs().mean()
