import torch


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        for key in batch:
            batch[key] = to_device(batch[key], device)
        return batch
    if isinstance(batch, list):
        for i, value in enumerate(batch):
            batch[i] = to_device(value, device)
        return batch
    if isinstance(batch, tuple):
        return tuple(to_device(value, device) for value in batch)
    return batch
