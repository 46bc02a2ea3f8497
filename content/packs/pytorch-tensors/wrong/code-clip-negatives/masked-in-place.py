import torch


def clip_negatives(x):
    x[x < 0] = 0
    return x
