def clean_keys(state_dict):
    return {key.lstrip("_orig_mod.").lstrip("module."): value for key, value in state_dict.items()}
