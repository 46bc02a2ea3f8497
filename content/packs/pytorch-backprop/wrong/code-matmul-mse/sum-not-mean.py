import torch

torch.manual_seed(0)

W = torch.rand(1, 3, requires_grad=True)
X = torch.tensor([[1.0, 0.0], [2.0, 1.0], [0.0, 3.0]])
Y = W @ X

Y_target = torch.tensor([[1.0, 2.0]])
loss = ((Y - Y_target) ** 2).sum()

loss.backward()
print(W.grad)
