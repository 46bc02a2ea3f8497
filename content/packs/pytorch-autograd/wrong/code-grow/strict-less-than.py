import torch


def grow(x, limit):
    steps = 0
    while x.sum() < limit:
        x = x * 2
        steps += 1
    return x, steps
