import torch
from torch.nn.utils.rnn import pad_sequence


def pad_collate(batch):
    sequences = [seq for seq, _ in batch]
    labels = torch.tensor([float(label) for _, label in batch])
    lengths = torch.tensor([len(seq) for seq in sequences])
    padded = pad_sequence(sequences, batch_first=True, padding_value=0)
    return padded, lengths, labels
