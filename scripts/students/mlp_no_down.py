# nanoGPT-style Pre-LN stack whose MLP forgets its down projection: it
# returns GELU(c_fc(x)), (B,T,d_ff) = (2,4,256), and the block adds that onto
# the (2,4,64) stream. PyTorch's add refuses the operands, so the log ends with
# a failure line, check "residual", at block1.resid_2.
#
# Caught by: residual (the forward stops there; the probes are skipped).
#
#   python scripts/shapetrace_export.py scripts/students/mlp_no_down.py:Model \
#       --input 2,4,64 --seed 0 --out tests/fixtures/students/mlp_no_down.jsonl
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
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(D_MODEL, D_FF)
        self.gelu = nn.GELU()

    def forward(self, x):
        return self.gelu(self.c_fc(x))  # MISTAKE: no down projection back to d_model


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
