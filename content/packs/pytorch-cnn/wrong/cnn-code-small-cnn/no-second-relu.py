import torch
from torch import nn


class SmallCNN(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, kernel_size=3, padding=1),
            nn.MaxPool2d(2),
        )
        self.head = nn.Linear(16 * 7 * 7, num_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))
