import torch


def manual_backward(x, w1, w2):
    h = x @ w1
    a = torch.tanh(h)
    grad_p = torch.ones(x.shape[0], w2.shape[1])
    grad_w2 = a.T @ grad_p
    grad_a = grad_p @ w2.T
    grad_h = grad_a * (1 - h**2)
    grad_w1 = x.T @ grad_h
    return grad_w1, grad_w2
