def clean_keys(state_dict):
    cleaned = {}
    for key, value in state_dict.items():
        for prefix in ("module.", "_orig_mod."):
            key = key.removeprefix(prefix)
        cleaned[key] = value
    return cleaned
