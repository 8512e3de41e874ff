"""Times a PyTorch CPU eager forward of GPT-2-small-shaped blocks, for the
README's comparison with `cargo bench --bench trace`.

12 Pre-LN blocks, d 768, 12 heads, d_ff 3072, biases, tanh GELU, B = 1,
T = 128 and 1024, float32, torch.set_num_threads(2), under no_grad. The
attention is nanoGPT's: scaled_dot_product_attention(is_causal=True), and
also the explicit softmax(mask(q·kᵀ/√hd))·v that materialises the scores
as shapetrace does. The blocks only: no embeddings, no LM head.

Run:  python3 scripts/bench_torch.py
"""

import math
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

D, H, FF, L = 768, 12, 3072, 12


class Block(nn.Module):
    def __init__(self, sdpa):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.c_attn, self.c_proj = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.c_fc, self.mlp_proj = nn.Linear(D, FF), nn.Linear(FF, D)
        self.sdpa = sdpa

    def attn(self, x):
        b, t, d = x.shape
        q, k, v = self.c_attn(x).split(D, dim=2)
        q, k, v = (z.view(b, t, H, d // H).transpose(1, 2) for z in (q, k, v))
        if self.sdpa:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // H))
            mask = torch.ones(t, t, dtype=torch.bool).tril()
            att = F.softmax(att.masked_fill(~mask, float("-inf")), dim=-1)
            y = att @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(b, t, d))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


def bench(t, sdpa, runs):
    blocks = nn.Sequential(*[Block(sdpa) for _ in range(L)]).eval()
    x = torch.randn(1, t, D)
    with torch.no_grad():
        blocks(x)  # warm up
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            blocks(x)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    torch.set_num_threads(2)
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}")
    for t, runs in [(128, 20), (1024, 7)]:
        for sdpa in (True, False):
            kind = "sdpa" if sdpa else "explicit softmax"
            print(f"T={t:5} {kind:17} {bench(t, sdpa, runs) * 1000:9.1f} ms (median of {runs})")


if __name__ == "__main__":
    main()
