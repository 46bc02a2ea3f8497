import torch
from torch.nn.utils.rnn import pad_sequence


def encode(sentences, vocab):
    seqs = [torch.tensor([vocab.get(token, 1) for token in s], dtype=torch.long) for s in sentences]
    lengths = torch.tensor([len(s) for s in sentences], dtype=torch.long)
    return pad_sequence(seqs, batch_first=True, padding_value=0), lengths
