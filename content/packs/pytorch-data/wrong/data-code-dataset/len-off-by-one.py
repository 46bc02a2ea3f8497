import torch
from torch.utils.data import DataLoader, Dataset


class LineDataset(Dataset):
    def __init__(self, n):
        self.x = torch.arange(n, dtype=torch.float32)
        self.y = 2 * self.x + 1

    def __len__(self):
        return len(self.x) - 1

    def __getitem__(self, i):
        return self.x[i], self.y[i]


loader = DataLoader(LineDataset(10), batch_size=4)
print(f"batches: {len(loader)}")
