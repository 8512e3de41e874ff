"""Writes the token-ids-to-logits fixtures with Hugging Face transformers.

A tiny GPT-2 built by transformers itself (GPT2LMHeadModel: vocab 96, 16
positions, d 64, 2 blocks, 4 heads, d_ff 256, tanh GELU "gelu_new", LayerNorm
eps 1e-5, ln_f, lm_head tied to wte, eager attention, no dropout). Every
parameter is drawn from a fixed generator (LayerNorm gamma ~ 1 + 0.1 randn and
beta ~ 0.1 randn so both matter; linears 0.05 randn; wte/wpe 0.5 randn), then
rounded to float16 and back inside the model, so the model runs exactly the
weights the file holds:

  tests/fixtures/hf-gpt2-lm.safetensors       the state dict as save_pretrained writes it
                                              (transformer.wte/wpe.weight, transformer.h.{i}.…
                                              with Conv1D [in, out], transformer.ln_f.*; no
                                              lm_head.weight, it is tied), stored as F16
  tests/fixtures/hf-gpt2-lm-config.json       config.json as save_pretrained writes it
  tests/fixtures/hf-gpt2-lm-tokens.npy        token ids, (2, 4) int64, values in [0, 96)
  tests/fixtures/hf-gpt2-lm-logits.npy        model(input_ids).logits in float32, (2, 4, 96) f32
  tests/fixtures/hf-gpt2-lm-logits-bf16.npy   the same model cast with .to(torch.bfloat16), its
                                              logits cast to float32, (2, 4, 96) f32

Run from the repository root:  python3 scripts/make_lm_fixture.py
Needs torch, transformers, numpy and safetensors
(pip install torch transformers numpy safetensors).
"""

import copy
import os
import shutil
import tempfile

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from transformers import GPT2Config, GPT2LMHeadModel

OUT = "tests/fixtures"
PREFIX = os.path.join(OUT, "hf-gpt2-lm")
TOKENS = [[5, 17, 42, 95], [0, 63, 8, 31]]  # (2, 4), includes both ends of [0, 96)


def build_model():
    torch.manual_seed(47)
    config = GPT2Config(
        vocab_size=96,
        n_positions=16,
        n_embd=64,
        n_layer=2,
        n_head=4,
        n_inner=None,
        activation_function="gelu_new",
        layer_norm_epsilon=1e-5,
        tie_word_embeddings=True,
        attn_pdrop=0.0,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        bos_token_id=95,  # GPT-2's convention: the last id (50256 there); in range here
        eos_token_id=95,
    )
    # The plain PyTorch attention (matmul, + mask, softmax, matmul), not SDPA.
    config._attn_implementation = "eager"
    model = GPT2LMHeadModel(config).eval()
    assert model.lm_head.weight is model.transformer.wte.weight, "lm_head is not tied to wte"

    # Overwrite every parameter from one fixed generator, in named_parameters order
    # (tied weights appear once), so nothing depends on transformers' init scheme.
    g = torch.Generator().manual_seed(47)
    with torch.no_grad():
        for name, p in model.named_parameters():
            r = torch.randn(p.shape, generator=g, dtype=torch.float32)
            if ".ln_" in name and name.endswith(".weight"):
                p.copy_(1.0 + 0.1 * r)
            elif ".ln_" in name and name.endswith(".bias"):
                p.copy_(0.1 * r)
            elif name.endswith((".wte.weight", ".wpe.weight")):
                p.copy_(0.5 * r)
            elif name.endswith(".bias"):
                p.copy_(0.02 * r)
            else:  # Conv1D weights of c_attn, c_proj, c_fc
                p.copy_(0.05 * r)
            # Round to F16 and back: the model runs exactly what the file stores.
            p.copy_(p.half().float())
    return model


def main():
    os.makedirs(OUT, exist_ok=True)
    model = build_model()

    # Save with Hugging Face's own naming, then store the tensors as F16.
    tmp = tempfile.mkdtemp()
    try:
        model.save_pretrained(tmp, safe_serialization=True)
        state = load_file(os.path.join(tmp, "model.safetensors"))
        shutil.copyfile(os.path.join(tmp, "config.json"), PREFIX + "-config.json")
    finally:
        shutil.rmtree(tmp)
    state = {
        k: v.to(torch.float16).contiguous()
        for k, v in sorted(state.items())
        if not k.endswith((".attn.bias", ".attn.masked_bias")) and k != "lm_head.weight"
    }
    save_file(state, PREFIX + ".safetensors", metadata={"format": "pt"})

    ids = torch.tensor(TOKENS, dtype=torch.int64)
    np.save(PREFIX + "-tokens.npy", ids.numpy().astype("<i8"))

    with torch.no_grad():
        logits = model(input_ids=ids, use_cache=False).logits.float()
        model_bf16 = copy.deepcopy(model).to(torch.bfloat16)
        logits_bf16 = model_bf16(input_ids=ids, use_cache=False).logits
        assert logits_bf16.dtype == torch.bfloat16
        logits_bf16 = logits_bf16.float()
    assert logits.shape == (2, 4, 96)
    np.save(PREFIX + "-logits.npy", logits.numpy().astype("<f4"))
    np.save(PREFIX + "-logits-bf16.npy", logits_bf16.numpy().astype("<f4"))

    print(f"max |logits f32|          = {logits.abs().max().item():.6g}")
    print(f"max |logits bf16 - f32|   = {(logits_bf16 - logits).abs().max().item():.6g}")
    for suffix in (".safetensors", "-config.json", "-tokens.npy", "-logits.npy", "-logits-bf16.npy"):
        path = PREFIX + suffix
        print(f"wrote {path}  {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
