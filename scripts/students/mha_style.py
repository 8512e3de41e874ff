"""A correct Pre-LN transformer stack built on PyTorch's own attention module.

Style: each block's attention is ``nn.MultiheadAttention(d, 4,
batch_first=True)`` called as self-attention ``attn(h, h, h,
attn_mask=mask, need_weights=False)``, with a boolean causal mask
``torch.triu(ones(T, T), diagonal=1)`` (True = may not attend); the MLP
Linear → ReLU → Linear in a small module; blocks in an ``nn.ModuleList``.

What a student should see: every check passes (4 residual adds of
(2,4,64) + (2,4,64), causality and positionwise hold), with the
attention's inside traced through torch's ``multi_head_attention_forward``.

    python scripts/shapetrace_export.py scripts/students/mha_style.py:Model \\
        --input 2,4,64 --out mha_style.jsonl
"""
import torch
import torch.nn as nn

D_MODEL, N_HEAD, D_FF, N_LAYER = 64, 4, 256, 2


class FeedForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(D_MODEL, D_FF)
        self.fc2 = nn.Linear(D_FF, D_MODEL)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = nn.LayerNorm(D_MODEL)
        self.attn = nn.MultiheadAttention(D_MODEL, N_HEAD, batch_first=True)
        self.norm2 = nn.LayerNorm(D_MODEL)
        self.ff = FeedForward()

    def forward(self, x):
        T = x.size(1)
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool, device=x.device), diagonal=1)
        h = self.norm1(x)
        a, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        x = x + a
        x = x + self.ff(self.norm2(x))
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.layers = nn.ModuleList([Block() for _ in range(N_LAYER)])
        self.norm = nn.LayerNorm(D_MODEL)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)
