"""A correct one-layer Pre-LN model: its one block held as an attribute.

Style: ``Model`` holds a single ``Block`` as ``self.layer`` (no ModuleList:
one layer needs none), then a final ``norm``; the block is minGPT-like, with
separate ``query``/``key``/``value`` Linears, a ``tril`` mask and an MLP in an
``nn.Sequential``. With no container of blocks, the model itself is the one
block, and ``layer`` (a whole Block, attention inside) is one of its
children.

What a student should see: every check passes (2 residual adds of (2,4,64) +
(2,4,64)); positionwise runs the norms and the block's MLP alone, never the
whole block, whose attention mixes the tokens on purpose.

    python scripts/shapetrace_export.py scripts/students/wrapped_block.py:Model \\
        --input 2,4,64 --out wrapped_block.jsonl
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

D_MODEL, N_HEAD, D_FF = 64, 4, 256


class SelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.query = nn.Linear(D_MODEL, D_MODEL)
        self.key = nn.Linear(D_MODEL, D_MODEL)
        self.value = nn.Linear(D_MODEL, D_MODEL)
        self.proj = nn.Linear(D_MODEL, D_MODEL)

    def forward(self, x):
        B, T, C = x.shape
        hd = C // N_HEAD
        q = self.query(x).view(B, T, N_HEAD, hd).transpose(1, 2)
        k = self.key(x).view(B, T, N_HEAD, hd).transpose(1, 2)
        v = self.value(x).view(B, T, N_HEAD, hd).transpose(1, 2)
        att = q @ k.transpose(-2, -1) / math.sqrt(hd)
        mask = torch.tril(torch.ones(T, T, device=x.device)) == 0
        att = F.softmax(att.masked_fill(mask, float("-inf")), dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(D_MODEL)
        self.sa = SelfAttention()
        self.ln2 = nn.LayerNorm(D_MODEL)
        self.ffwd = nn.Sequential(nn.Linear(D_MODEL, D_FF), nn.ReLU(), nn.Linear(D_FF, D_MODEL))

    def forward(self, x):
        x = x + self.sa(self.ln1(x))
        x = x + self.ffwd(self.ln2(x))
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.layer = Block()
        self.norm = nn.LayerNorm(D_MODEL)

    def forward(self, x):
        return self.norm(self.layer(x))
