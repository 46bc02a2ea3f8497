import torch


def gradient_penalty(critic, x):
    x = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(critic(x).sum(), x, create_graph=True)
    norms = grad.flatten(1).norm(dim=1)
    return ((norms - 1) ** 2).mean()
