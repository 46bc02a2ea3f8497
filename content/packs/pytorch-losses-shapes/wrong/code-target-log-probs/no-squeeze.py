import torch


def target_log_probs(logits, targets):
    return torch.log_softmax(logits, dim=1).gather(1, targets.unsqueeze(1))
