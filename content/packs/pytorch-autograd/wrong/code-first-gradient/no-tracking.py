import torch

x = torch.tensor([1.0, 2.0, 3.0])
y = (x ** 3).sum()
print(3 * x ** 2)
