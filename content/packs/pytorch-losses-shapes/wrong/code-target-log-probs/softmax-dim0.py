import torch


def target_log_probs(logits, targets):
    log_probs = torch.log_softmax(logits, dim=0)
    return log_probs[torch.arange(len(targets)), targets]
