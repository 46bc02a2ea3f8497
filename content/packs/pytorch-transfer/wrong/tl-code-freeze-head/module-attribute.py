import torch
from torch import nn


def prepare(model, num_classes):
    model.features.requires_grad = False
    model.classifier = nn.Linear(model.classifier.in_features, num_classes)
    return model
