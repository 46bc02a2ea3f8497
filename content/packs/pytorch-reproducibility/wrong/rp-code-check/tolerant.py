import torch


def check_reproducible(fn, seed):
    torch.manual_seed(seed)
    first = fn()
    torch.manual_seed(seed)
    second = fn()
    if isinstance(first, torch.Tensor):
        first, second = (first,), (second,)
    return len(first) == len(second) and all(torch.allclose(a, b) for a, b in zip(first, second))
