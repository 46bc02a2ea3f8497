import torch


def capture(model, x, names):
    modules = dict(model.named_children())
    outputs, handles = {}, []
    for name in names:
        if name not in modules:
            continue

        def hook(module, args, output, name=name):
            outputs[name] = output.detach()

        handles.append(modules[name].register_forward_hook(hook))
    try:
        model(x)
    finally:
        for handle in handles:
            handle.remove()
    return outputs
