"""nanoGPT-style Pre-LN stack whose softmax runs over the wrong axis.

Mistake: ``F.softmax(att, dim=-2)`` on the masked (B, H, Tq, Tk) scores,
normalising each key's column over the queries instead of each query's row
over the keys. The mask is applied first and the shapes are all right, but
column k's sum runs over every query at or after k, so the weights an
earlier query gives depend on later tokens.

What a student should see: causality fails (an earlier position changes
when a later token does), naming the line below marked ``# MISTAKE``;
residual, positionwise, op-shapes and stream pass.

    python scripts/shapetrace_export.py scripts/students/softmax_wrong_dim.py:Model \\
        --input 2,4,64 --out softmax_wrong_dim.jsonl
"""
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
        mask = torch.tril(torch.ones(BLOCK_SIZE, BLOCK_SIZE))
        self.register_buffer("bias", mask.view(1, 1, BLOCK_SIZE, BLOCK_SIZE))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-2)  # MISTAKE: softmax over the queries (dim=-2), not the keys (dim=-1)
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
