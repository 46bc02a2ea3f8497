def clean_keys(state_dict):
    for key in list(state_dict):
        new = key
        while new.startswith(("module.", "_orig_mod.")):
            new = new.removeprefix("module.").removeprefix("_orig_mod.")
        state_dict[new] = state_dict.pop(key)
    return state_dict
