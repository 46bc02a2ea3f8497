import torch


def to_patches(img, p):
    h, w = img.shape
    return img.reshape(h // p, p, w // p, p).reshape(-1, p, p)
