def load_matching(model, state_dict):
    own = model.state_dict()
    kept = {k: v for k, v in state_dict.items() if k in own}
    model.load_state_dict(kept, strict=False)
    return sorted(k for k in state_dict if k not in kept)
