"""Times a PyTorch CPU eager forward of GPT-2-small-shaped blocks, for the
docs/src/performance.md's comparison with `cargo bench --bench trace`.

12 Pre-LN blocks, d 768, 12 heads, d_ff 3072, biases, tanh GELU, B = 1,
T = 128 and 1024, float32, torch.set_num_threads(2), under no_grad. The
attention is nanoGPT's: scaled_dot_product_attention(is_causal=True), and
also the explicit softmax(mask(q·kᵀ/√hd))·v that materialises the scores
as shapetrace does. The blocks only: no embeddings, no LM head.

With --linear, times instead only the linear layers' products that
`cargo bench --bench trace -- "linear matmuls"` times through the crate's
matmul: per block four (T,d)·(d,d), one (T,d)·(d,4d) and one
(T,4d)·(4d,d), T = 1024, each of the 12 blocks with its own weights, all
reading the same x (T,d) and h (T,4d), with torch.matmul into outputs
allocated once (out=), 2 threads: the multiplications alone, no bias.

Run:  python3 scripts/bench_torch.py [--seq T]... [--sdpa] [--runs N]
      python3 scripts/bench_torch.py --linear [--runs N]
Needs torch (pip install torch).
"""

import argparse
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


def bench_linear(t, runs):
    """The 12 blocks' linear products at T `t`, as the `trace` bench's
    `gpt2-small linear matmuls` group: seconds per run, each run timed."""
    gen = torch.Generator().manual_seed(0)
    x, h = torch.randn(t, D, generator=gen), torch.randn(t, FF, generator=gen)
    blocks = [
        [torch.randn(D, D, generator=gen) for _ in range(4)]
        + [torch.randn(D, FF, generator=gen), torch.randn(FF, D, generator=gen)]
        for _ in range(L)
    ]
    out_d, out_ff = torch.empty(t, D), torch.empty(t, FF)

    def run():
        for wq, wk, wv, wo, up, down in blocks:
            for w in (wq, wk, wv, wo):
                torch.matmul(x, w, out=out_d)
            torch.matmul(x, up, out=out_ff)
            torch.matmul(h, down, out=out_d)

    run()  # warm up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--linear", action="store_true", help="time the linear layers' products only")
    ap.add_argument("--seq", type=int, action="append", help="a T to time (default 128 and 1024)")
    ap.add_argument("--sdpa", action="store_true", help="fused attention only")
    ap.add_argument("--runs", type=int, help="timed runs per row (default 20 at T 128, 7 at T 1024)")
    args = ap.parse_args()
    torch.set_num_threads(2)
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}")
    if args.linear:
        runs = args.runs or 20
        times = bench_linear(1024, runs)
        print(
            f"T= 1024 linear products {statistics.median(times):.3f} s "
            f"(median of {runs}; min {min(times):.3f}, max {max(times):.3f})"
        )
        return
    for t in args.seq or [128, 1024]:
        runs = args.runs or (20 if t <= 128 else 7)
        for sdpa in (True,) if args.sdpa else (True, False):
            kind = "sdpa" if sdpa else "explicit softmax"
            print(f"T={t:5} {kind:17} {bench(t, sdpa, runs) * 1000:9.1f} ms (median of {runs})")


if __name__ == "__main__":
    main()
