def load_matching(model, state_dict):
    result = model.load_state_dict(state_dict, strict=False)
    return sorted(result.unexpected_keys)
