"""A correct Pre-LN transformer stack written the way minGPT writes it.

Style: CausalSelfAttention with separate ``key``, ``query`` and ``value``
Linears and a registered ``bias`` buffer, the causal mask
``torch.tril(torch.ones(T, T)).view(1, 1, T, T)``, sliced to the sequence
and compared ``== 0`` before the softmax; dropout layers (idle in eval mode);
the MLP an ``nn.Sequential`` of Linear(d, 4d), GELU, Linear(4d, d); the
blocks in an ``nn.Sequential``, then ``ln_f``.

What a student should see: every check passes (4 residual adds of
(2,4,64) + (2,4,64), causality and positionwise hold).

    python scripts/shapetrace_export.py scripts/students/mingpt_style.py:Model \\
        --input 2,4,64 --out mingpt_style.jsonl
"""
import math

import torch
import torch.nn as nn
from torch.nn import functional as F

N_EMBD, N_HEAD, N_LAYER, BLOCK_SIZE, DROPOUT = 64, 4, 2, 16, 0.1


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.key = nn.Linear(N_EMBD, N_EMBD)
        self.query = nn.Linear(N_EMBD, N_EMBD)
        self.value = nn.Linear(N_EMBD, N_EMBD)
        self.attn_drop = nn.Dropout(DROPOUT)
        self.resid_drop = nn.Dropout(DROPOUT)
        self.proj = nn.Linear(N_EMBD, N_EMBD)
        self.register_buffer(
            "bias", torch.tril(torch.ones(BLOCK_SIZE, BLOCK_SIZE)).view(1, 1, BLOCK_SIZE, BLOCK_SIZE)
        )
        self.n_head = N_HEAD

    def forward(self, x):
        B, T, C = x.size()
        k = self.key(x).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        q = self.query(x).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = self.value(x).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))  # (B, nh, T, T)
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_drop(att)
        y = att @ v  # (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_drop(self.proj(y))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(N_EMBD)
        self.ln2 = nn.LayerNorm(N_EMBD)
        self.attn = CausalSelfAttention()
        self.mlp = nn.Sequential(
            nn.Linear(N_EMBD, 4 * N_EMBD),
            nn.GELU(),
            nn.Linear(4 * N_EMBD, N_EMBD),
            nn.Dropout(DROPOUT),
        )

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        x = x + self.mlp(self.ln2(x))
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.blocks = nn.Sequential(*[Block() for _ in range(N_LAYER)])
        self.ln_f = nn.LayerNorm(N_EMBD)

    def forward(self, x):
        return self.ln_f(self.blocks(x))
