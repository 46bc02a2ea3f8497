import torch


def gradient_penalty(critic, x):
    x = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(critic(x).sum(), x, create_graph=True)
    return (grad.norm() - 1) ** 2
