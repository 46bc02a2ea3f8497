import torch


def build_mask(lengths, L, causal):
    keys = torch.arange(L) < lengths[:, None]
    mask = keys[:, None, None, :].expand(-1, 1, L, -1)
    if causal:
        mask = mask & torch.ones(L, L, dtype=torch.bool).triu()
    return mask
