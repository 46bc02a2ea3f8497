import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self, in_features, hidden, out_features):
        super().__init__()
        self.layers = [nn.Linear(in_features, hidden), nn.ReLU(), nn.Linear(hidden, out_features)]

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


print(f"parameters: {sum(p.numel() for p in MLP(4, 8, 3).parameters())}")
