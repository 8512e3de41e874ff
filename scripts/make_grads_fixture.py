"""Writes the gradient fixture of the tiny Hugging Face GPT-2: what
transformers' own training step gives every parameter.

The checkpoint is the one scripts/make_lm_fixture.py made
(tests/fixtures/hf-gpt2-lm.safetensors with its -config.json; F16 values,
widened to f32 on load, eager attention, no dropout: every pdrop is 0 and
the model is in eval mode), lm_head tied to wte. Its prompt is
tests/fixtures/hf-gpt2-lm-tokens.npy, (2, 4) int64. Then

    loss = model(ids, labels=ids).loss      # next-token cross-entropy,
    loss.backward()                         # mean over B·(T−1) = 6

and every parameter's .grad is written, f32, under the checkpoint's own
names and layouts (Conv1D [in, out]; wte once: lm_head is the same
tensor, so its gradient holds both shares):

  tests/fixtures/hf-gpt2-lm-grads.safetensors   28 tensors, metadata
                                                {"loss": "<the loss>"}

`shapetrace trace --weights … --config … --tokens … --backward
--grads-out G.safetensors` writes the same names; tests/backward.rs
matches every tensor to 1e-4 relative to its largest value.

Rerun from the repository root:

  .venv/bin/python scripts/make_grads_fixture.py [--out FILE]

(or, elsewhere: python3 -m venv .venv && .venv/bin/pip install torch
transformers safetensors numpy). scripts/tests/test_grads_fixture.py
reruns it and compares with the committed file.
"""

import argparse
import sys
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_decode_fixtures import FIXTURES, GPT2, load_gpt2  # noqa: E402

OUT = FIXTURES / f"{GPT2}-grads.safetensors"


def grads(fixtures=FIXTURES):
    """(loss, {checkpoint name: gradient}) of one training step's backward."""
    model = load_gpt2(fixtures)
    ids = torch.from_numpy(np.load(fixtures / f"{GPT2}-tokens.npy"))
    assert ids.dtype == torch.int64 and ids.shape == (2, 4), ids
    model.zero_grad()
    loss = model(ids, labels=ids).loss
    loss.backward()
    file_names = set(load_file(fixtures / f"{GPT2}.safetensors"))
    out = {}
    for name, p in model.named_parameters():
        assert name in file_names, f"{name} is not a name of the checkpoint"
        assert p.grad is not None and p.grad.shape == p.shape, name
        out[name] = p.grad.detach().to(torch.float32).contiguous()
    # The tied head is wte itself: one parameter, both shares in its grad.
    assert model.lm_head.weight is model.transformer.wte.weight
    return float(loss), out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=OUT, help=f"where to write (default {OUT})")
    a = p.parse_args()
    torch.manual_seed(0)  # nothing is drawn; only so that no run depends on a global state
    loss, out = grads()
    save_file(out, str(a.out), metadata={"loss": repr(loss)})
    print(f"loss {loss:.6f}; {len(out)} gradients; wrote {a.out} ({a.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
