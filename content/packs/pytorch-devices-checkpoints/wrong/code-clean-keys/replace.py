def clean_keys(state_dict):
    return {key.replace("_orig_mod.", "").replace("module.", ""): value for key, value in state_dict.items()}
