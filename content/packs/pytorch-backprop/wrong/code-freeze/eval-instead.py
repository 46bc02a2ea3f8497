import torch


def freeze_all_but_last(model):
    for layer in model[:-1]:
        layer.eval()
    return sum(p.numel() for p in model[-1].parameters())
