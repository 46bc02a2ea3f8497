import torch


def capture(model, x, names):
    modules = dict(model.named_modules())
    outputs, handles = {}, []
    for name in names:
        def hook(module, args, output, name=name):
            outputs[name] = output

        handles.append(modules[name].register_forward_hook(hook))
    try:
        model(x)
    finally:
        for handle in handles:
            handle.remove()
    return outputs
