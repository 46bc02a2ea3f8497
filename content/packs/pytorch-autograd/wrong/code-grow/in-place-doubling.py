import torch


def grow(x, limit):
    x = x.clone() if not x.requires_grad else x
    steps = 0
    while x.sum() <= limit:
        x.mul_(2)
        steps += 1
    return x, steps
