"""nanoGPT-style Pre-LN stack with a hand-written LayerNorm over the wrong axis.

Mistake: the student's own ``LayerNorm`` takes its mean and variance over
``dim=1``, the sequence, instead of ``dim=-1``, the features. The shapes are
all right (keepdim broadcasts back to (B, T, d)), but every position is now
normalised with statistics of the whole sequence: a norm that mixes tokens,
later ones into earlier ones.

What a student should see: positionwise fails (block1.ln_1 alone changes
other tokens' rows) and causality fails (an earlier position changes when a
later token does), both naming the line below marked ``# MISTAKE``;
residual, op-shapes and stream pass.

    python scripts/shapetrace_export.py scripts/students/norm_over_seq.py:Model \\
        --input 2,4,64 --out norm_over_seq.jsonl
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

D_MODEL, N_HEAD, D_FF, N_LAYER, BLOCK_SIZE = 64, 4, 256, 2, 16


class LayerNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))
        self.bias = nn.Parameter(torch.zeros(d))

    def forward(self, x):
        mean = x.mean(dim=1, keepdim=True)  # MISTAKE: statistics over the sequence (dim=1), not the features (dim=-1)
        var = x.var(dim=1, keepdim=True, unbiased=False)
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias


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
        att = F.softmax(att, dim=-1)
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
        self.ln_1 = LayerNorm(D_MODEL)
        self.attn = CausalSelfAttention()
        self.ln_2 = LayerNorm(D_MODEL)
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
        self.ln_f = LayerNorm(D_MODEL)

    def forward(self, x):
        for block in self.h:
            x = block(x)
        return self.ln_f(x)
