import torch


def fit(x, y, lr=0.1, epochs=100):
    w = torch.zeros((), requires_grad=True)
    b = torch.zeros((), requires_grad=True)
    losses = []
    for _ in range(epochs):
        loss = ((w * x + b - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        w.data -= lr * w.grad
        b.data -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    return w, b, losses


x_train = torch.linspace(-1, 1, 21)
y_train = 3 * x_train - 0.5
w, b, losses = fit(x_train, y_train, lr=0.1, epochs=200)
print(f"w={w.item():.2f} b={b.item():.2f}")
