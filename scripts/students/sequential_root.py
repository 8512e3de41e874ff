"""A correct Pre-LN stack whose model is itself an ``nn.Sequential`` of blocks.

Style: no ``Model`` class holding the blocks: the factory returns
``nn.Sequential(Block(), Block())``, so the model's own children are the
blocks (named ``0`` and ``1``); each block nanoGPT's, with a fused ``c_attn``,
``view``/``transpose`` heads and a ``tril`` mask.

What a student should see: every check passes, with the blocks found as
block1 and block2 (4 residual adds of (2,4,64) + (2,4,64), 2 per block), not
one block holding both.

    python scripts/shapetrace_export.py scripts/students/sequential_root.py:make_model \\
        --input 2,4,64 --out sequential_root.jsonl
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

D_MODEL, N_HEAD, D_FF, N_LAYER = 64, 4, 256, 2


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
        mask = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        att = F.softmax(att.masked_fill(~mask, float("-inf")), dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(D_MODEL)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(D_MODEL)
        self.mlp = nn.Sequential(nn.Linear(D_MODEL, D_FF), nn.GELU(), nn.Linear(D_FF, D_MODEL))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(*[Block() for _ in range(N_LAYER)])
