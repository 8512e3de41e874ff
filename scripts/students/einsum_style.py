# A correct Pre-LN transformer stack written differently from nanoGPT:
# separate q, k, v Linears; torch.einsum for the scores and the weighted sum;
# a torch.triu(..., diagonal=1).bool() mask filled with -inf; residuals added
# in place (`x += self.attn(self.ln1(x))`); blocks in an nn.Sequential.
#
# Every check should pass: 4 residual adds of (2,4,64) + (2,4,64) (the
# in-place adds count), causality and positionwise pass.
#
#   python scripts/shapetrace_export.py scripts/students/einsum_style.py:Model \
#       --input 2,4,64 --seed 0 --out tests/fixtures/students/einsum_style.jsonl
import torch
import torch.nn as nn

D_MODEL, N_HEAD, D_FF, N_LAYER = 64, 4, 256, 2


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.h = N_HEAD
        self.hd = D_MODEL // N_HEAD
        self.q = nn.Linear(D_MODEL, D_MODEL)
        self.k = nn.Linear(D_MODEL, D_MODEL)
        self.v = nn.Linear(D_MODEL, D_MODEL)
        self.out = nn.Linear(D_MODEL, D_MODEL)

    def forward(self, x):
        B, T, _ = x.shape
        q = self.q(x).reshape(B, T, self.h, self.hd)
        k = self.k(x).reshape(B, T, self.h, self.hd)
        v = self.v(x).reshape(B, T, self.h, self.hd)
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / self.hd**0.5
        future = torch.triu(torch.ones(T, T, device=x.device), diagonal=1).bool()
        scores = scores.masked_fill(future, float("-inf"))
        weights = scores.softmax(dim=-1)
        ctx = torch.einsum("bhqk,bkhd->bqhd", weights, v)
        return self.out(ctx.reshape(B, T, self.h * self.hd))


class FeedForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Linear(D_MODEL, D_FF)
        self.down = nn.Linear(D_FF, D_MODEL)

    def forward(self, x):
        return self.down(torch.nn.functional.gelu(self.up(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(D_MODEL)
        self.attn = Attention()
        self.ln2 = nn.LayerNorm(D_MODEL)
        self.ffn = FeedForward()

    def forward(self, x):
        x += self.attn(self.ln1(x))
        x += self.ffn(self.ln2(x))
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.blocks = nn.Sequential(*[Block() for _ in range(N_LAYER)])
        self.norm = nn.LayerNorm(D_MODEL)

    def forward(self, x):
        return self.norm(self.blocks(x))
