"""Writes the checkpoint fixtures of tests/weights.rs with PyTorch.

A tiny nanoGPT-style model (2 blocks, d 64, 4 heads, d_ff 256, biases,
exact-erf GELU, LayerNorm eps 1e-5, ln_f) with random weights, run by
PyTorch on a random (2, 4, 64) input:

  tests/fixtures/nanogpt-tiny.safetensors       nanoGPT state_dict names, nn.Linear [out, in],
                                                 with the _orig_mod. prefix of torch.compile
                                                 and nanoGPT's causal-mask buffers attn.bias
  tests/fixtures/nanogpt-tiny-input.npy         x0, (2, 4, 64) f32
  tests/fixtures/nanogpt-tiny-output.npy        ln_f(blocks(x0)), (2, 4, 64) f32
  tests/fixtures/hf-gpt2-tiny.safetensors       the same blocks named as Hugging Face GPT-2
                                                 (h.{i}.…, Conv1D [in, out]), stored as F16
  tests/fixtures/hf-gpt2-tiny-output.npy        the output with GPT-2's tanh GELU and the
                                                 F16-rounded weights

Run from the repository root:  python3 scripts/make_fixture.py
Needs torch, numpy and safetensors (pip install torch numpy safetensors).
"""

import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import save_file

D, H, FF, L, B, T, CTX, V = 64, 4, 256, 2, 2, 4, 8, 16
OUT = "tests/fixtures"


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(D, 3 * D)
        self.c_proj = nn.Linear(D, D)
        self.register_buffer("bias", torch.tril(torch.ones(CTX, CTX)).view(1, 1, CTX, CTX))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.c_attn(x).split(D, dim=2)
        q = q.view(b, t, H, d // H).transpose(1, 2)  # (B, h, T, hd)
        k = k.view(b, t, H, d // H).transpose(1, 2)
        v = v.view(b, t, H, d // H).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))  # (B, h, T, T)
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, d)  # (B, T, d)
        return self.c_proj(y)


class Mlp(nn.Module):
    def __init__(self, approximate):
        super().__init__()
        self.c_fc = nn.Linear(D, FF)
        self.c_proj = nn.Linear(FF, D)
        self.approximate = approximate

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate=self.approximate))


class Block(nn.Module):
    def __init__(self, approximate):
        super().__init__()
        self.ln_1 = nn.LayerNorm(D, eps=1e-5)
        self.attn = Attention()
        self.ln_2 = nn.LayerNorm(D, eps=1e-5)
        self.mlp = Mlp(approximate)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Gpt(nn.Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(V, D),
                wpe=nn.Embedding(CTX, D),
                h=nn.ModuleList([Block(approximate) for _ in range(L)]),
                ln_f=nn.LayerNorm(D, eps=1e-5),
            )
        )

    def forward(self, x):
        for block in self.transformer.h:
            x = block(x)
        return self.transformer.ln_f(x)


def main():
    torch.manual_seed(47)
    torch.set_num_threads(2)
    model = Gpt()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "ln" in name:  # norms away from 1 and 0, so γ and β matter
                p.copy_(torch.randn_like(p) * 0.1 + (1.0 if name.endswith("weight") else 0.0))
            else:
                p.copy_(torch.randn_like(p) * 0.05)
    x = torch.randn(B, T, D)
    os.makedirs(OUT, exist_ok=True)
    with torch.no_grad():
        y = model(x)
    sd = {"_orig_mod." + k: v.contiguous() for k, v in model.state_dict().items()}
    save_file(sd, f"{OUT}/nanogpt-tiny.safetensors")
    np.save(f"{OUT}/nanogpt-tiny-input.npy", x.numpy().astype("<f4"))
    np.save(f"{OUT}/nanogpt-tiny-output.npy", y.numpy().astype("<f4"))

    # Hugging Face GPT-2: h.{i}.…, Conv1D [in, out], tanh GELU, stored as F16.
    hf = Gpt(approximate="tanh")
    hf.load_state_dict(model.state_dict())
    stored = {}
    with torch.no_grad():
        for k, v in hf.state_dict().items():
            if not k.startswith("transformer.h.") and not k.startswith("transformer.ln_f"):
                continue
            if k.endswith(".attn.bias"):
                continue
            name = k.removeprefix("transformer.")
            half = v.to(torch.float16)
            hf.state_dict()[k].copy_(half.to(torch.float32))  # the model runs what the file holds
            is_matrix = v.dim() == 2
            stored[name] = (half.t() if is_matrix else half).contiguous()
        y_hf = hf(x)
    save_file(stored, f"{OUT}/hf-gpt2-tiny.safetensors")
    np.save(f"{OUT}/hf-gpt2-tiny-output.npy", y_hf.numpy().astype("<f4"))
    print("wrote", sorted(os.listdir(OUT)))


if __name__ == "__main__":
    main()
