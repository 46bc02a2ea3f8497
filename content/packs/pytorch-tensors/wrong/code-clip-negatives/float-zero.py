import torch


def clip_negatives(x):
    # The Python float 0.0 promotes an integer tensor to float32.
    return torch.where(x < 0, 0.0, x)
