import torch
from torch.utils.data import DataLoader, TensorDataset, random_split


def make_loaders(x, y, batch_size, seed):
    dataset = TensorDataset(x, y)
    train_set, val_set = random_split(dataset, [80, 20], generator=torch.Generator().manual_seed(seed))
    train_loader = DataLoader(
        train_set, batch_size=batch_size, shuffle=True, generator=torch.Generator().manual_seed(seed)
    )
    val_loader = DataLoader(val_set, batch_size=batch_size, shuffle=False)
    return train_loader, val_loader
