import torch


def predict(model, images):
    n, h, w, c = images.shape
    x = images.reshape(n, c, h, w).float() / 255
    model.eval()
    with torch.no_grad():
        return model(x).argmax(dim=1)
