import torch
from torch.utils.data import DataLoader, TensorDataset, random_split


def make_loaders(x, y, batch_size, seed):
    torch.manual_seed(seed)
    dataset = TensorDataset(x, y)
    train_set, val_set = random_split(dataset, [0.8, 0.2])
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=batch_size, shuffle=False)
    return train_loader, val_loader
