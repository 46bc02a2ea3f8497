import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self, in_features, hidden, out_features):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(in_features, hidden),
            nn.ReLU(),
            nn.Linear(hidden, out_features),
            nn.ReLU(),
        )

    def forward(self, x):
        return self.layers(x)


print(f"parameters: {sum(p.numel() for p in MLP(4, 8, 3).parameters())}")
