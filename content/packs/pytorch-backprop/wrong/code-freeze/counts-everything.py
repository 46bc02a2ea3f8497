import torch


def freeze_all_but_last(model):
    for layer in model[:-1]:
        for p in layer.parameters():
            p.requires_grad_(False)
    return sum(p.numel() for p in model.parameters())
