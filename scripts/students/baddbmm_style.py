"""A correct Pre-LN stack whose attention scores come from ``torch.baddbmm``.

Style: as in older Hugging Face code (GPT-2's ``_upcast_and_reordered_attn``,
Bloom), the heads are folded into the batch, ``(B·h, T, hd)``; the scores are
``torch.baddbmm(empty, q, k.transpose(1, 2), beta=0, alpha=1/sqrt(hd))`` into
an uninitialised ``torch.empty`` (β = 0: its contents are never read), masked
with ``masked_fill`` and a ``tril`` mask, then ``softmax`` and ``torch.bmm``
with v; blocks in an ``nn.ModuleList``.

What a student should see: every check passes; the baddbmm's output is the
scores before their mask (axes (B·h, Tq, Tk), ``pre_mask``), which causality
judges after the mask, like a ``q @ kᵀ``.

    python scripts/shapetrace_export.py scripts/students/baddbmm_style.py:Model \\
        --input 2,4,64 --out baddbmm_style.jsonl
"""
import math

import torch
import torch.nn as nn

D_MODEL, N_HEAD, D_FF, N_LAYER = 64, 4, 256, 2


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D_MODEL, 3 * D_MODEL)
        self.out = nn.Linear(D_MODEL, D_MODEL)

    def forward(self, x):
        B, T, C = x.shape
        hd = C // N_HEAD
        q, k, v = self.qkv(x).split(C, dim=2)
        q = q.view(B, T, N_HEAD, hd).transpose(1, 2).reshape(B * N_HEAD, T, hd)
        k = k.view(B, T, N_HEAD, hd).transpose(1, 2).reshape(B * N_HEAD, T, hd)
        v = v.view(B, T, N_HEAD, hd).transpose(1, 2).reshape(B * N_HEAD, T, hd)
        empty = torch.empty(B * N_HEAD, T, T, dtype=q.dtype, device=q.device)
        scores = torch.baddbmm(empty, q, k.transpose(1, 2), beta=0, alpha=1 / math.sqrt(hd))
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        weights = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        y = torch.bmm(weights, v).view(B, N_HEAD, T, hd).transpose(1, 2).reshape(B, T, C)
        return self.out(y)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(D_MODEL, D_FF)
        self.proj = nn.Linear(D_FF, D_MODEL)

    def forward(self, x):
        return self.proj(torch.nn.functional.gelu(self.fc(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(D_MODEL)
        self.attn = Attention()
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
        self.blocks = nn.ModuleList([Block() for _ in range(N_LAYER)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
