"""Pre-LN stack whose attention splits the heads with a bare view.

Mistake: ``t.view(B, H, T, hd)`` on the (B, T, d) projections, instead of
``t.view(B, T, H, hd).transpose(1, 2)``. Both have the shape (B, H, T, hd),
so nothing complains; but with the bare view, "head" h holds token h's
features and "position" t holds a slice of features of one token, so the
causal mask is applied to feature slices, not to tokens. The merge back,
``y.transpose(1, 2).contiguous().view(B, T, C)``, is the usual one and
spreads every token over every output position. The causal mask is there.
(With T = H = 4, as here, the bare view is exactly ``view(B, T, H, hd)``:
attention then runs over each token's heads, and the tokens are first mixed
where the merge's transpose moves them; the missing ``transpose(1, 2)``
after the split is the whole mistake.)

What a student should see: causality fails (an earlier position changes
when a later token does), naming the line below marked ``# MISTAKE``;
residual, positionwise, op-shapes and stream pass.

    python scripts/shapetrace_export.py scripts/students/view_no_transpose.py:Model \\
        --input 2,4,64 --out view_no_transpose.jsonl
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
        self.q_proj = nn.Linear(D_MODEL, D_MODEL)
        self.k_proj = nn.Linear(D_MODEL, D_MODEL)
        self.v_proj = nn.Linear(D_MODEL, D_MODEL)
        self.c_proj = nn.Linear(D_MODEL, D_MODEL)
        mask = torch.tril(torch.ones(BLOCK_SIZE, BLOCK_SIZE))
        self.register_buffer("bias", mask.view(1, 1, BLOCK_SIZE, BLOCK_SIZE))

    def split_heads(self, t):
        B, T, C = t.shape
        return t.view(B, self.n_head, T, C // self.n_head)  # MISTAKE: (B, T, C) viewed as (B, H, T, hd) without transpose(1, 2)

    def forward(self, x):
        B, T, C = x.size()
        q = self.split_heads(self.q_proj(x))
        k = self.split_heads(self.k_proj(x))
        v = self.split_heads(self.v_proj(x))
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
