import torch


def freeze_all_but_last(model):
    params = list(model.parameters())
    for p in params[:-2]:
        p.requires_grad_(False)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
