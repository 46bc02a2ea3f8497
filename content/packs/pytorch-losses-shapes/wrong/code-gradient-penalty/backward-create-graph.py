import torch


def gradient_penalty(critic, x):
    x = x.detach().requires_grad_(True)
    critic(x).sum().backward(create_graph=True)
    norms = x.grad.flatten(1).norm(dim=1)
    return ((norms - 1) ** 2).mean()
