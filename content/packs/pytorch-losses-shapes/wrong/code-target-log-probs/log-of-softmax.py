import torch


def target_log_probs(logits, targets):
    log_probs = torch.log(torch.softmax(logits, dim=1))
    return log_probs.gather(1, targets.unsqueeze(1)).squeeze(1)
