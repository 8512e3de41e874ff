"""A correct Llama-style stack: grouped-query attention through
``F.scaled_dot_product_attention``, RMSNorm and a SwiGLU MLP.

Style: 4 query heads share 2 key/value heads (``wk``, ``wv`` project to
2·hd; each kv head is repeated for its 2 query heads with
``repeat_interleave(2, dim=1)``); ``F.scaled_dot_product_attention(q, k, v,
is_causal=True)`` masks the future itself; ``nn.RMSNorm`` before each
sublayer; the MLP ``w2(silu(w1(x)) * w3(x))`` without biases; blocks in an
``nn.ModuleList`` ``layers``, then a final ``norm``.

What a student should see: every check passes (4 residual adds of
(2,4,64) + (2,4,64), causality and positionwise hold).

    python scripts/shapetrace_export.py scripts/students/sdpa_gqa_style.py:Model \\
        --input 2,4,64 --out sdpa_gqa_style.jsonl
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

DIM, N_HEADS, N_KV_HEADS, HIDDEN, N_LAYERS = 64, 4, 2, 176, 2  # HIDDEN ≈ 2/3 · 4 · DIM
HEAD_DIM = DIM // N_HEADS


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.wq = nn.Linear(DIM, N_HEADS * HEAD_DIM, bias=False)
        self.wk = nn.Linear(DIM, N_KV_HEADS * HEAD_DIM, bias=False)
        self.wv = nn.Linear(DIM, N_KV_HEADS * HEAD_DIM, bias=False)
        self.wo = nn.Linear(N_HEADS * HEAD_DIM, DIM, bias=False)

    def forward(self, x):
        B, T, _ = x.shape
        q = self.wq(x).view(B, T, N_HEADS, HEAD_DIM).transpose(1, 2)  # (B, 4, T, hd)
        k = self.wk(x).view(B, T, N_KV_HEADS, HEAD_DIM).transpose(1, 2)  # (B, 2, T, hd)
        v = self.wv(x).view(B, T, N_KV_HEADS, HEAD_DIM).transpose(1, 2)
        groups = N_HEADS // N_KV_HEADS
        k = k.repeat_interleave(groups, dim=1)  # (B, 4, T, hd)
        v = v.repeat_interleave(groups, dim=1)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.wo(y.transpose(1, 2).reshape(B, T, DIM))


class FeedForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.w1 = nn.Linear(DIM, HIDDEN, bias=False)
        self.w2 = nn.Linear(HIDDEN, DIM, bias=False)
        self.w3 = nn.Linear(DIM, HIDDEN, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TransformerBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention_norm = nn.RMSNorm(DIM, eps=1e-5)
        self.attention = Attention()
        self.ffn_norm = nn.RMSNorm(DIM, eps=1e-5)
        self.feed_forward = FeedForward()

    def forward(self, x):
        h = x + self.attention(self.attention_norm(x))
        return h + self.feed_forward(self.ffn_norm(h))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.layers = nn.ModuleList([TransformerBlock() for _ in range(N_LAYERS)])
        self.norm = nn.RMSNorm(DIM, eps=1e-5)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)
