import torch


def last_state(out, lengths):
    return out[:, -1]
