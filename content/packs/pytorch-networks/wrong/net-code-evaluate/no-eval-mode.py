import torch


def accuracy(logits, labels):
    return (logits.argmax(dim=1) == labels).float().mean().item()


def evaluate(model, loader):
    correct = 0
    total = 0
    with torch.no_grad():
        for xb, yb in loader:
            correct += (model(xb).argmax(dim=1) == yb).sum().item()
            total += yb.shape[0]
    return correct / total
