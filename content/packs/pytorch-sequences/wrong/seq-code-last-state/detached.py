import torch


def last_state(out, lengths):
    return out.detach()[torch.arange(out.shape[0]), lengths - 1]
