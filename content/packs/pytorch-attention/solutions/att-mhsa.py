import torch
import torch.nn.functional as F
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.qkv = nn.Linear(embed_dim, 3 * embed_dim)
        self.out = nn.Linear(embed_dim, embed_dim)

    def forward(self, x, causal=False):
        N, L, E = x.shape
        H = self.num_heads
        D = E // H
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (t.view(N, L, H, D).transpose(1, 2) for t in (q, k, v))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        return self.out(out.transpose(1, 2).reshape(N, L, E))
