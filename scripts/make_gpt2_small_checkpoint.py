"""Writes a random GPT-2-small-shaped nanoGPT checkpoint, for
scripts/peak_memory.sh.

nanoGPT state_dict names (nn.Linear, [out, in]), float32, as
`shapetrace --weights` reads them (docs/src/real-models.md, "Checkpoints (`--weights`)"):
transformer.wte.weight (50257, 768), transformer.wpe.weight (1024, 768),
12 blocks of transformer.h.{i}.ln_1, attn.c_attn, attn.c_proj, ln_2,
mlp.c_fc, mlp.c_proj (weights and biases), and transformer.ln_f. No
lm_head (tied to wte, which safetensors does not store twice) and no
causal-mask buffers. 124,439,808 values: a 498 MB file. The values are
seeded normal draws (σ 0.02, norms γ 1 and β 0); only the shapes matter
for memory.

Run:  python3 scripts/make_gpt2_small_checkpoint.py OUT.safetensors
Needs numpy and safetensors (pip install numpy safetensors).
"""

import sys

import numpy as np
from safetensors.numpy import save_file

D, FF, L, V, CTX = 768, 3072, 12, 50257, 1024


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUT.safetensors")
    rng = np.random.default_rng(0)

    def normal(*shape):
        return (rng.standard_normal(shape, dtype=np.float32) * 0.02).astype("<f4")

    t = {
        "transformer.wte.weight": normal(V, D),
        "transformer.wpe.weight": normal(CTX, D),
        "transformer.ln_f.weight": np.ones(D, "<f4"),
        "transformer.ln_f.bias": np.zeros(D, "<f4"),
    }
    for i in range(L):
        h = f"transformer.h.{i}."
        for ln in ("ln_1", "ln_2"):
            t[h + ln + ".weight"] = np.ones(D, "<f4")
            t[h + ln + ".bias"] = np.zeros(D, "<f4")
        for name, out, inp in [
            ("attn.c_attn", 3 * D, D),
            ("attn.c_proj", D, D),
            ("mlp.c_fc", FF, D),
            ("mlp.c_proj", D, FF),
        ]:
            t[h + name + ".weight"] = normal(out, inp)
            t[h + name + ".bias"] = normal(out)
    save_file(t, sys.argv[1])
    n = sum(a.size for a in t.values())
    print(f"wrote {sys.argv[1]}: {len(t)} tensors, {n:,} values")


if __name__ == "__main__":
    main()
