import torch


def train_epoch(model, loader, loss_fn, optimizer):
    model.train()
    losses = []
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)
