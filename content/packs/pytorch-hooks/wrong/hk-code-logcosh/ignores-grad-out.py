import math

import torch
import torch.nn.functional as F


class LogCosh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, r):
        ctx.save_for_backward(r)
        return r.abs() + F.softplus(-2 * r.abs()) - math.log(2)

    @staticmethod
    def backward(ctx, grad_out):
        (r,) = ctx.saved_tensors
        return torch.tanh(r)


log_cosh = LogCosh.apply


def fit(model, x, y, steps, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for _ in range(steps):
        optimizer.zero_grad()
        log_cosh(model(x) - y).mean().backward()
        optimizer.step()
