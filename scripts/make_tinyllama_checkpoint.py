"""Writes a TinyLlama-1.1B-shaped Llama checkpoint with random weights, for
the speed comparison in docs/src/performance.md (`scripts/bench_tinyllama_torch.py`,
`cargo bench --bench tinyllama`).

The model is tests/fixtures/hf/tinyllama-1.1b.json (TinyLlama-1.1B's own
config.json): 22 layers, hidden 2048, 32 heads, 4 K/V heads (head_dim 64),
SwiGLU intermediate 5632, vocab 32000, RMSNorm eps 1e-5, rope theta 10000,
untied LM head. Every linear and embedding weight is N(0, 0.02²) (the
config's initializer_range, as transformers initialises them), every norm
weight 1, all drawn from one generator seeded 0, so the file is the same
on every run. Stored BF16, as TinyLlama is published: 1.1 B parameters,
about 2.2 GB.

Files written to OUT_DIR (created if missing; not part of the repository):

  config.json        a copy of tests/fixtures/hf/tinyllama-1.1b.json
  model.safetensors  the state dict with transformers' names
                     (model.embed_tokens.weight (32000, 2048), per layer
                     model.layers.{i}.self_attn.{q,k,v,o}_proj.weight,
                     model.layers.{i}.mlp.{gate,up,down}_proj.weight,
                     model.layers.{i}.{input,post_attention}_layernorm.weight,
                     model.norm.weight, lm_head.weight (32000, 2048)), BF16

Run from the repository root:

  /work/venv/bin/python scripts/make_tinyllama_checkpoint.py /work/tinyllama

(or any Python with torch, transformers and safetensors). Takes about a
minute and 5 GB of memory at most (one f32 tensor at a time is drawn).
"""

import os
import shutil
import sys

import torch
from safetensors.torch import save_file
from transformers import LlamaConfig, LlamaForCausalLM

CONFIG = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "hf", "tinyllama-1.1b.json")
STD = 0.02


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_tinyllama_checkpoint.py OUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    shutil.copyfile(CONFIG, os.path.join(out, "config.json"))
    config = LlamaConfig.from_json_file(CONFIG)
    # The names and shapes only: no memory, no initialisation.
    with torch.device("meta"):
        model = LlamaForCausalLM(config)
    gen = torch.Generator().manual_seed(0)
    tensors = {}
    for name, p in model.state_dict().items():
        if name.endswith("norm.weight"):
            t = torch.ones(p.shape)
        else:
            t = torch.randn(p.shape, generator=gen) * STD
        tensors[name] = t.to(torch.bfloat16).contiguous()
    path = os.path.join(out, "model.safetensors")
    save_file(tensors, path, metadata={"format": "pt"})
    n = sum(t.numel() for t in tensors.values())
    print(f"{path}: {len(tensors)} tensors, {n / 1e9:.3f} B parameters, {os.path.getsize(path) / 1e9:.2f} GB (BF16)")


if __name__ == "__main__":
    main()
