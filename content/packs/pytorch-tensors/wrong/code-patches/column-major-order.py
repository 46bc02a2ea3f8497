import torch


def to_patches(img, p):
    h, w = img.shape
    bands = img.reshape(h // p, p, w // p, p)
    return bands.permute(2, 0, 1, 3).reshape(-1, p, p)
