"""Times one decode step of transformers' eager Llama with its key/value
cache, on the TinyLlama-shaped checkpoint that
scripts/make_tinyllama_checkpoint.py writes: the transformers side of a
decode comparison, as scripts/bench_tinyllama_torch.py is for the forward.

LlamaForCausalLM.from_pretrained(DIR, dtype=float32,
attn_implementation="eager"): the BF16 file's values widened to f32, as
shapetrace reads them; torch.inference_mode(), torch.set_num_threads(N)
with N the machine's cores unless --threads says. The prompt is B 1,
--cache (256) ids, id t = (7919 t + 1) mod 32000, the ids the forward
bench gives; the new token is id t of position --cache.

The step: the prompt is prefilled once with use_cache=True (not timed),
giving a DynamicCache of length 256 in each of the 22 layers. A timed run
is one forward of the new token, (1, 1) ids, against that cache (the
cache grows to 257: torch.cat of each layer's keys and values, as in
generate), to logits (1, 1, 32000). After each run the cache is cropped
back to 256 (DynamicCache.crop(-1), untimed), so every run starts from
the same state; the script checks that every run gives the same logits,
and that they are the last row of one forward of all 257 ids without a
cache (to 1e-3 of the largest logit; untimed).
After --warmup runs, --runs are timed one by one; it prints the median,
minimum and maximum in seconds on one line:

  transformers 5.24.0 eager, torch 2.15.0, 2 threads, B 1, f32, one decode step at cache 256: 0.1234 s (median of 20; min 0.1200 s, max 0.1300 s)

With --generate it then also times model.generate (greedy, eos off so
every call makes its tokens, its default DynamicCache): a call with
max_new_tokens=K+1 and one with max_new_tokens=1 (the prefill and the
first token), --gen-runs pairs after one untimed pair; per-token time is
(t(K+1) - t(1)) / K per pair, K = --new (default 16), printed the same way:

  ..., generate per token after a 256-token prompt (K 16), (t(K+1) - t(1)) / K: 0.2700 s (median of 3; ...)

The prefill (several seconds) varies between calls by more than K steps
take on a busy machine, so the difference can be noisy, even negative;
a second line therefore times the same long calls from inside: a logits
processor that only notes the time, so the gaps between consecutive
steps (K per call, --gen-runs calls) are each one step of generate:

  ..., generate per token after a 256-token prompt (K 16), between its steps: 0.2650 s (median of 48; ...)

Both include generate's own work per step (the logits processors, the
stopping criteria, the cache's bookkeeping) on top of the forward, with
the cache at lengths 257..256+K, not 256.

Run:  .venv/bin/python scripts/bench_decode_torch.py [/work/tinyllama] [--cache 256] [--runs 20] [--warmup 3] [--threads N] [--generate [--new 16] [--gen-runs 3]]
Needs torch, transformers and safetensors; DIR as
scripts/make_tinyllama_checkpoint.py writes it (2.2 GB, about 4.4 GB of
f32 once loaded).
"""

import argparse
import os
import statistics
import time

import torch
from transformers import GenerationConfig, LlamaForCausalLM, LogitsProcessor, LogitsProcessorList


def ids(start, stop, vocab=32000):
    """The bench's token ids at positions start..stop: (1, stop-start), id t = (7919 t + 1) mod vocab."""
    return torch.tensor([[(7919 * t + 1) % vocab for t in range(start, stop)]], dtype=torch.long)


def line(what, a, s):
    return (
        f"transformers {__import__('transformers').__version__} eager, torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads, B 1, f32, {what}: "
        f"{statistics.median(s):.4f} s (median of {len(s)}; min {min(s):.4f} s, max {max(s):.4f} s)"
    )


def step(model, a):
    """Seconds of each timed one-token forward against a cache of a.cache."""
    prompt, new = ids(0, a.cache), ids(a.cache, a.cache + 1)
    cache = model(input_ids=prompt, use_cache=True).cache
    assert cache.get_seq_length() == a.cache, cache.get_seq_length()
    times, first = [], None
    for i in range(a.warmup + a.runs):
        assert cache.get_seq_length() == a.cache
        t0 = time.perf_counter()
        out = model(input_ids=new, cache=cache, use_cache=True)
        dt = time.perf_counter() - t0
        assert out.cache is cache and cache.get_seq_length() == a.cache + 1
        cache.crop(-1)  # transformers 5: a negative count of tokens to drop
        logits = out.logits
        assert logits.shape == (1, 1, model.config.vocab_size), logits.shape
        if first is None:
            first = logits.clone()
        else:
            assert torch.equal(logits, first), "a run did not start from the same cache"
        if i >= a.warmup:
            times.append(dt)
    # The cached step is the step: the last row of a forward of all
    # cache+1 ids without a cache (untimed) gives the same logits.
    full = model(input_ids=torch.cat([prompt, new], dim=1), use_cache=False).logits[:, -1:]
    delta = (full - first).abs().max().item()
    assert delta < 1e-3 * max(1.0, full.abs().max().item()), f"cached step differs from the no-cache forward by {delta}"
    return times


class Stamps(LogitsProcessor):
    """Notes the time at each of generate's steps and changes nothing."""

    def __init__(self):
        self.at = []

    def __call__(self, input_ids, scores):
        self.at.append(time.perf_counter())
        return scores


def generate(model, a):
    """(seconds per token of generate beyond its first, one per pair of
    calls; seconds between consecutive steps inside the long calls)."""
    prompt = ids(0, a.cache)
    mask = torch.ones_like(prompt)
    model.generation_config.eos_token_id = None  # else generate fills it back in from the model's
    per_pair, per_step = [], []
    for i in range(1 + a.gen_runs):
        spent = {}
        for n in (1, a.new + 1):
            gen = GenerationConfig(do_sample=False, num_beams=1, max_new_tokens=n, min_new_tokens=n,
                                   eos_token_id=None, pad_token_id=0, use_cache=True)
            stamps = Stamps()
            t0 = time.perf_counter()
            seq = model.generate(prompt, attention_mask=mask, generation_config=gen,
                                 logits_processor=LogitsProcessorList([stamps]))
            spent[n] = time.perf_counter() - t0
            assert seq.shape == (1, a.cache + n), seq.shape
            assert len(stamps.at) == n, len(stamps.at)
            if i >= 1 and n > 1:
                per_step += [t1 - t0 for t0, t1 in zip(stamps.at, stamps.at[1:])]
        if i >= 1:
            per_pair.append((spent[a.new + 1] - spent[1]) / a.new)
    return per_pair, per_step


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir", nargs="?", default="/work/tinyllama")
    p.add_argument("--cache", type=int, default=256, help="cache length the timed step starts from")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--generate", action="store_true", help="also time generate's per-token cost (two lines)")
    p.add_argument("--new", type=int, default=16, help="K: generate's extra tokens (--generate)")
    p.add_argument("--gen-runs", type=int, default=3, help="timed pairs of generate calls (--generate)")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    model = LlamaForCausalLM.from_pretrained(a.dir, dtype=torch.float32, attn_implementation="eager")
    model.eval()
    with torch.inference_mode():
        print(line(f"one decode step at cache {a.cache}", a, step(model, a)), flush=True)
        if a.generate:
            per_pair, per_step = generate(model, a)
            what = f"generate per token after a {a.cache}-token prompt (K {a.new}), (t(K+1) - t(1)) / K"
            print(line(what, a, per_pair), flush=True)
            what = f"generate per token after a {a.cache}-token prompt (K {a.new}), between its steps"
            print(line(what, a, per_step), flush=True)


if __name__ == "__main__":
    main()
