import torch


def train_epoch(model, loader, loss_fn, optimizer):
    model.train()
    total_loss = 0.0
    total_samples = 0
    for xb, yb in loader:
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
        total_loss += loss.item() * xb.shape[0]
        total_samples += xb.shape[0]
    return total_loss / total_samples
