"""A correct Pre-LN stack that copies its input and adds in place.

Style: the block starts with ``x = x.clone()`` (so its in-place adds never
write into the caller's tensor), computes attention inline from its own
``wq``/``wk``/``wv``/``wo`` Linears, and adds both sublayers in place:
``x += self.wo(o)`` and ``x += self.mlp(self.ln_2(x))``. The clone is the
block's stream; both in-place adds are residual adds onto it.

What a student should see: every check passes, residual too (4 residual
adds of (2,4,64) + (2,4,64): a copy of the stream is still the stream).

    python scripts/shapetrace_export.py scripts/students/clone_iadd.py:Model \\
        --input 2,4,64 --out clone_iadd.jsonl
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

D_MODEL, N_HEAD, D_FF, N_LAYER = 64, 4, 256, 2


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(D_MODEL, D_FF)
        self.c_proj = nn.Linear(D_FF, D_MODEL)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(D_MODEL)
        self.wq = nn.Linear(D_MODEL, D_MODEL)
        self.wk = nn.Linear(D_MODEL, D_MODEL)
        self.wv = nn.Linear(D_MODEL, D_MODEL)
        self.wo = nn.Linear(D_MODEL, D_MODEL)
        self.ln_2 = nn.LayerNorm(D_MODEL)
        self.mlp = MLP()

    def forward(self, x):
        x = x.clone()
        B, T, C = x.shape
        h = self.ln_1(x)
        q = self.wq(h).view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
        k = self.wk(h).view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
        v = self.wv(h).view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        o = o.transpose(1, 2).reshape(B, T, C)
        x += self.wo(o)
        x += self.mlp(self.ln_2(x))
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
