import torch
import torch.nn.functional as F


def activation_grad(model, x, y, name):
    module = dict(model.named_modules())[name]
    saved = {}

    def pre_hook(mod, args):
        inp = args[0]
        if inp.requires_grad:
            inp.register_hook(lambda g: saved.__setitem__("grad", g.detach()))
        else:
            inp = inp.detach().requires_grad_()
            inp.register_hook(lambda g: saved.__setitem__("grad", g.detach()))
            return (inp,)

    handle = module.register_forward_pre_hook(pre_hook)
    try:
        F.mse_loss(model(x), y).backward()
    finally:
        handle.remove()
    return saved["grad"]
