import torch
from torch.nn.utils.rnn import pad_sequence


def encode(sentences, vocab):
    seqs = [torch.tensor([vocab.get(token, 1) for token in s], dtype=torch.long) for s in sentences]
    ids = pad_sequence(seqs, batch_first=True, padding_value=0)
    lengths = torch.full((len(sentences),), ids.shape[1], dtype=torch.long)
    return ids, lengths
