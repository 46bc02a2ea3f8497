import torch


def make_optimizer(model, backbone_lr, head_lr):
    return torch.optim.AdamW(model.parameters(), lr=head_lr, weight_decay=0.01)
