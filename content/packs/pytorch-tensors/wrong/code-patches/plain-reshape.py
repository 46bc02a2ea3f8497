import torch


def to_patches(img, p):
    return img.reshape(-1, p, p)
