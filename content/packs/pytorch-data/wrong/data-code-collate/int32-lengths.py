import torch
from torch.nn.utils.rnn import pad_sequence


def pad_collate(batch):
    sequences = [seq for seq, _ in batch]
    labels = torch.tensor([label for _, label in batch])
    lengths = torch.tensor([len(seq) for seq in sequences], dtype=torch.int32)
    padded = pad_sequence(sequences, batch_first=True, padding_value=0)
    return padded, lengths, labels
