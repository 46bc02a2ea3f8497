import torch


def clip_negatives(x):
    return x[x >= 0]
