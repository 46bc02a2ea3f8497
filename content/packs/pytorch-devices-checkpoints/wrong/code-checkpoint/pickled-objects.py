import torch


def save_checkpoint(path, model, optimizer, epoch):
    torch.save({"model": model, "optimizer": optimizer, "epoch": epoch}, path)


def load_checkpoint(path, model, optimizer):
    checkpoint = torch.load(path, weights_only=False)
    model.load_state_dict(checkpoint["model"].state_dict())
    optimizer.load_state_dict(checkpoint["optimizer"].state_dict())
    return checkpoint["epoch"] + 1
