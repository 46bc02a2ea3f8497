import torch


def snapshot(model):
    return model.state_dict()


def restore(model, snap):
    model.load_state_dict(snap)
