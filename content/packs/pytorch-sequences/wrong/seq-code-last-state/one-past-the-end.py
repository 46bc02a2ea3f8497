import torch


def last_state(out, lengths):
    return out[torch.arange(out.shape[0]), lengths.clamp(max=out.shape[1] - 1)]
