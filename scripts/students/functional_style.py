"""A correct Pre-LN transformer stack written functionally on raw parameters.

Style: a block holds ``nn.Parameter`` tensors only, no submodules; its
forward calls ``F.layer_norm``, ``F.linear`` and ``F.gelu`` on them, splits
the heads with ``view`` + ``permute``, masks the scores with
``masked_fill`` and a ``torch.ones(T, T).tril()`` mask, and writes the
softmax out by hand (subtract the row max, ``exp``, divide by the row sum).
The only submodule anywhere is the ``nn.ModuleList`` of blocks.

What a student should see: residual (4 adds of (2,4,64) + (2,4,64)),
causality, op-shapes and stream pass. positionwise is skipped: it probes
norm and MLP modules, and this model has none (its norms and MLPs are
function calls inside the block).

    python scripts/shapetrace_export.py scripts/students/functional_style.py:Model \\
        --input 2,4,64 --out functional_style.jsonl
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

D, H, D_FF, N_LAYER = 64, 4, 256, 2


def param(*shape, std=0.02):
    return nn.Parameter(torch.randn(*shape) * std)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1_w, self.ln1_b = nn.Parameter(torch.ones(D)), nn.Parameter(torch.zeros(D))
        self.w_qkv, self.b_qkv = param(3 * D, D), nn.Parameter(torch.zeros(3 * D))
        self.w_o, self.b_o = param(D, D), nn.Parameter(torch.zeros(D))
        self.ln2_w, self.ln2_b = nn.Parameter(torch.ones(D)), nn.Parameter(torch.zeros(D))
        self.w_up, self.b_up = param(D_FF, D), nn.Parameter(torch.zeros(D_FF))
        self.w_down, self.b_down = param(D, D_FF), nn.Parameter(torch.zeros(D))

    def attention(self, x):
        B, T, _ = x.shape
        qkv = F.linear(x, self.w_qkv, self.b_qkv)  # (B, T, 3D)
        qkv = qkv.view(B, T, 3, H, D // H).permute(2, 0, 3, 1, 4)  # (3, B, H, T, hd)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = q @ k.transpose(-2, -1) / (D // H) ** 0.5  # (B, H, T, T)
        allowed = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        scores = scores.masked_fill(~allowed, float("-inf"))
        scores = scores - scores.amax(dim=-1, keepdim=True)
        e = scores.exp()
        weights = e / e.sum(dim=-1, keepdim=True)
        out = (weights @ v).permute(0, 2, 1, 3).reshape(B, T, D)
        return F.linear(out, self.w_o, self.b_o)

    def mlp(self, x):
        return F.linear(F.gelu(F.linear(x, self.w_up, self.b_up)), self.w_down, self.b_down)

    def forward(self, x):
        x = x + self.attention(F.layer_norm(x, (D,), self.ln1_w, self.ln1_b))
        x = x + self.mlp(F.layer_norm(x, (D,), self.ln2_w, self.ln2_b))
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.blocks = nn.ModuleList([Block() for _ in range(N_LAYER)])
        self.lnf_w, self.lnf_b = nn.Parameter(torch.ones(D)), nn.Parameter(torch.zeros(D))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return F.layer_norm(x, (D,), self.lnf_w, self.lnf_b)
