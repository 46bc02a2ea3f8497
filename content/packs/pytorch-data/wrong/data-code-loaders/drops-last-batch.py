import torch
from torch.utils.data import DataLoader, TensorDataset, random_split


def make_loaders(x, y, batch_size, seed):
    dataset = TensorDataset(x, y)
    train_set, val_set = random_split(dataset, [0.8, 0.2], generator=torch.Generator().manual_seed(seed))
    train_loader = DataLoader(
        train_set, batch_size=batch_size, shuffle=True, drop_last=True,
        generator=torch.Generator().manual_seed(seed),
    )
    val_loader = DataLoader(val_set, batch_size=batch_size, shuffle=False)
    return train_loader, val_loader
