def clean_keys(state_dict):
    # Strips `_orig_mod.` and then `module.`, once each: misses `module._orig_mod.` and doubled prefixes.
    return {key.removeprefix("_orig_mod.").removeprefix("module."): value for key, value in state_dict.items()}
