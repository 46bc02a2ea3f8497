import torch


def train_steps(model, batches, loss_fn, optimizer, scheduler, max_norm):
    norms = []
    for x, y in batches:
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()
        norms.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)))
        scheduler.step()
    return norms
