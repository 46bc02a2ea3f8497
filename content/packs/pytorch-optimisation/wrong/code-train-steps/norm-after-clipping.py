import torch


def train_steps(model, batches, loss_fn, optimizer, scheduler, max_norm):
    norms = []
    for x, y in batches:
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        grads = [p.grad.flatten() for p in model.parameters()]
        norms.append(float(torch.cat(grads).norm()))
        optimizer.step()
        scheduler.step()
    return norms
