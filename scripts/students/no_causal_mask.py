# nanoGPT-style Pre-LN stack whose attention has no causal mask: each
# position attends to every position, later ones included. Every shape is
# right, so the forward runs.
#
# Caught by: causality.
#
#   python scripts/shapetrace_export.py scripts/students/no_causal_mask.py:Model \
#       --input 2,4,64 --seed 0 --out tests/fixtures/students/no_causal_mask.jsonl
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

D_MODEL, N_HEAD, D_FF, N_LAYER, BLOCK_SIZE = 64, 4, 256, 2, 16


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.n_head = N_HEAD
        self.c_attn = nn.Linear(D_MODEL, 3 * D_MODEL)
        self.c_proj = nn.Linear(D_MODEL, D_MODEL)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = F.softmax(att, dim=-1)  # MISTAKE: softmax over unmasked scores (no causal mask before it)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(D_MODEL, D_FF)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(D_FF, D_MODEL)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(D_MODEL)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(D_MODEL)
        self.mlp = MLP()

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.h = nn.ModuleList([Block() for _ in range(N_LAYER)])
        self.ln_f = nn.LayerNorm(D_MODEL)

    def forward(self, x):
        for block in self.h:
            x = block(x)
        return self.ln_f(x)
