PREFIXES = ("module.", "_orig_mod.")


def clean_keys(state_dict):
    cleaned = {}
    for key, value in state_dict.items():
        while key.startswith(PREFIXES):
            for prefix in PREFIXES:
                key = key.removeprefix(prefix)
        cleaned[key] = value
    return cleaned
