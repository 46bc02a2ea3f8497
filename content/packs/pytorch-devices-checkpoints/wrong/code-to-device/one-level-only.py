import torch


def _move(value, device):
    return value.to(device) if isinstance(value, torch.Tensor) else value


def to_device(batch, device):
    if isinstance(batch, dict):
        return {key: _move(value, device) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(_move(value, device) for value in batch)
    return _move(batch, device)
