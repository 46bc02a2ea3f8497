import torch


def make_optimizer(model, backbone_lr, head_lr):
    return torch.optim.AdamW(
        [
            {"params": model.features.parameters(), "lr": head_lr},
            {"params": model.classifier.parameters(), "lr": backbone_lr},
        ],
        weight_decay=0.01,
    )
