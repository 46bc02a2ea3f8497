import torch


def make_optimizer(model, backbone_lr, head_lr):
    return torch.optim.SGD(
        [
            {"params": model.features.parameters(), "lr": backbone_lr},
            {"params": model.classifier.parameters(), "lr": head_lr},
        ],
        weight_decay=0.01,
    )
