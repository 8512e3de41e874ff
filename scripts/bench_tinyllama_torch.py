"""Times transformers' eager forward of the TinyLlama-shaped checkpoint that
scripts/make_tinyllama_checkpoint.py writes, for the comparison in docs/src/performance.md
with `cargo bench --bench tinyllama`.

LlamaForCausalLM.from_pretrained(DIR, dtype=float32,
attn_implementation="eager"): the BF16 file's values widened to f32, as
shapetrace reads them. The forward is the whole model on token ids:
embeddings, 22 blocks, the final RMSNorm and the LM head, giving logits
(1, 256, 32000); use_cache=False (no key/value cache is built), under
torch.inference_mode(), torch.set_num_threads(N) with N the machine's cores
unless --threads says. The input is B 1, T 256 ids, id t = (7919 t + 1) mod
32000, the ids the bench gives shapetrace. Loading is not timed; after
--warmup forwards, --runs forwards are timed one by one and the median
printed, with the minimum and maximum.

With --linear, times instead one block's seven linear products alone, as
`cargo bench --bench tinyllama -- "linear products"` does: (256, 2048)
times q (2048, 2048), k and v (2048, 256), o (2048, 2048), gate and up
(2048, 5632), and (256, 5632) times down (5632, 2048), random f32 [in,
out] matrices, torch.matmul into outputs allocated once (out=); DIR is
then not read.

Run:  /work/venv/bin/python scripts/bench_tinyllama_torch.py /work/tinyllama [--runs 7] [--warmup 2] [--threads N] [--seq 256]
Needs torch, transformers and safetensors.
"""

import argparse
import os
import statistics
import time

import torch
from transformers import LlamaForCausalLM


def ids(seq, vocab=32000):
    """The bench's token ids: (1, seq), id t = (7919 t + 1) mod vocab."""
    return torch.tensor([[(7919 * t + 1) % vocab for t in range(seq)]], dtype=torch.long)


def timed(f, warmup, runs):
    """Milliseconds of each of `runs` calls of f after `warmup` untimed ones."""
    times = []
    for i in range(warmup + runs):
        t0 = time.perf_counter()
        f()
        if i >= warmup:
            times.append((time.perf_counter() - t0) * 1e3)
    return times


def linear(a):
    gen = torch.Generator().manual_seed(0)
    d, kv, ff = 2048, 256, 5632
    x, h = torch.randn(a.seq, d, generator=gen), torch.randn(a.seq, ff, generator=gen)
    ws = [torch.randn(i, o, generator=gen) for i, o in [(d, d), (d, kv), (d, kv), (d, d), (d, ff), (d, ff)]]
    down = torch.randn(ff, d, generator=gen)
    outs = [torch.empty(a.seq, w.shape[1]) for w in ws]
    out_down = torch.empty(a.seq, d)

    def run():
        for w, y in zip(ws, outs):
            torch.matmul(x, w, out=y)
        torch.matmul(h, down, out=out_down)

    ms = timed(run, a.warmup, a.runs)
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads, one block's linear products, "
        f"T {a.seq}: {statistics.median(ms):.2f} ms (median of {a.runs}; min {min(ms):.2f}, max {max(ms):.2f})"
    )


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--seq", type=int, default=256)
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--linear", action="store_true", help="one block's linear products only")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    if a.linear:
        return linear(a)
    model = LlamaForCausalLM.from_pretrained(a.dir, dtype=torch.float32, attn_implementation="eager")
    model.eval()
    x = ids(a.seq)
    times = []
    with torch.inference_mode():
        for i in range(a.warmup + a.runs):
            t0 = time.perf_counter()
            out = model(input_ids=x, use_cache=False).logits
            dt = time.perf_counter() - t0
            if i >= a.warmup:
                times.append(dt)
    assert out.shape == (1, a.seq, model.config.vocab_size), out.shape
    ms = [t * 1e3 for t in times]
    print(
        f"transformers {__import__('transformers').__version__} eager, torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads, B 1, T {a.seq}, f32, ids to logits: "
        f"{statistics.median(ms):.1f} ms (median of {a.runs}; min {min(ms):.1f}, max {max(ms):.1f})"
    )


if __name__ == "__main__":
    main()
