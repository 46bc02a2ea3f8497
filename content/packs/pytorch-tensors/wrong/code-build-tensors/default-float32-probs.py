import torch

grid = torch.zeros(3, 4)
ids = torch.arange(10)
eye = torch.eye(3)
probs = torch.tensor([0.2, 0.3, 0.5])

print(grid.shape)
