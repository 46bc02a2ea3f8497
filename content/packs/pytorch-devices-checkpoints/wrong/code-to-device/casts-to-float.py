import torch


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, torch.float32)  # wrong: int64 labels and bool masks become floats
    if isinstance(batch, dict):
        return {key: to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(value, device) for value in batch)
    return batch
