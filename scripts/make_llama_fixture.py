"""Writes the Hugging Face Llama and Mistral checkpoint fixtures with transformers.

Two tiny models built by transformers itself, eager attention, no dropout:

  Llama (LlamaForCausalLM): hidden 64, 4 heads, 2 K/V heads (GQA, head_dim 16),
  intermediate 128 (SwiGLU: down(silu(gate(x)) * up(x))), 2 layers, vocab 96,
  max_position_embeddings 16, rms_norm_eps 1e-5, rope_theta 10000, no biases,
  lm_head untied from embed_tokens.

  Mistral (MistralForCausalLM): the same sizes with sliding_window 2, so at T 4
  position t reads positions t-1 and t only. The script checks (and prints) that
  transformers applies the window at T 4: the same weights with
  sliding_window=None give other outputs.

Every parameter is drawn from one fixed generator (norm weights 1 + 0.1 randn so
they matter; linears 0.08 randn; embeddings 0.5 randn), so nothing depends on
transformers' init scheme.

Files (from the repository root):

  tests/fixtures/hf-llama-tiny/
    config.json        config.json as save_pretrained writes it (model_type llama)
    model.safetensors  the state dict as save_pretrained writes it, F32:
                       model.embed_tokens.weight (96,64), model.norm.weight (64),
                       lm_head.weight (96,64), and per layer i in 0..2
                       model.layers.{i}.input_layernorm.weight (64),
                       model.layers.{i}.post_attention_layernorm.weight (64),
                       model.layers.{i}.self_attn.{q,o}_proj.weight (64,64),
                       model.layers.{i}.self_attn.{k,v}_proj.weight (32,64),
                       model.layers.{i}.mlp.{gate,up}_proj.weight (128,64),
                       model.layers.{i}.mlp.down_proj.weight (64,128)
                       (nn.Linear: [out, in])
    input.npy          x0 for inputs_embeds, (2, 4, 64) f32, N(0, 1)
    tokens.npy         token ids, (2, 4) int64, in [0, 96), both ends included
    hidden.npy         model.model(inputs_embeds=x0).last_hidden_state, the
                       final norm included, (2, 4, 64) f32
    logits.npy         model(input_ids=tokens).logits, (2, 4, 96) f32
  tests/fixtures/hf-llama-tiny-sharded/
    config.json, model-0000{1,2,3}-of-00003.safetensors, model.safetensors.index.json:
                       the same F32 model as save_pretrained(max_shard_size=...)
                       shards it (its input and outputs are hf-llama-tiny's)
  tests/fixtures/hf-llama-tiny-bf16/
    config.json, model.safetensors: the same model with every tensor stored BF16
    hidden.npy, logits.npy: transformers' f32 forward on the bf16-rounded weights,
                       from hf-llama-tiny's input.npy and tokens.npy
  tests/fixtures/hf-mistral-tiny/
    config.json        model_type mistral, sliding_window 2
    model.safetensors  the same names as Llama's, stored F16; the model runs the
                       f16-rounded weights, so its outputs are those of the file
                       (F16 keeps the file under 200 KB)
    input.npy, tokens.npy, hidden.npy, logits.npy: as Llama's, for this model

The F32 Llama file is 0.35 MB: the sizes above, 86k parameters, at 4 bytes each.

Rerun from the repository root:

  /work/venv/bin/python scripts/make_llama_fixture.py

or, elsewhere:

  python3 -m venv .venv && .venv/bin/pip install torch transformers safetensors numpy
  .venv/bin/python scripts/make_llama_fixture.py
"""

import copy
import glob
import json
import os
import shutil

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from transformers import LlamaConfig, LlamaForCausalLM, MistralConfig, MistralForCausalLM

OUT = "tests/fixtures"
TOKENS = [[5, 17, 42, 95], [0, 63, 8, 31]]  # (2, 4), includes both ends of [0, 96)
SIZES = dict(
    vocab_size=96,
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=16,
    rms_norm_eps=1e-5,
    hidden_act="silu",
    attention_bias=False,
    mlp_bias=False,
    attention_dropout=0.0,
    tie_word_embeddings=False,
    bos_token_id=1,
    eos_token_id=2,
    pad_token_id=None,
)
ROPE = {"rope_type": "default", "rope_theta": 10000.0}


def fill(model, seed, rounding=None):
    """Every parameter from one generator; `rounding` (a torch dtype) rounds
    them so the model runs exactly what a file of that dtype holds."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            r = torch.randn(p.shape, generator=g, dtype=torch.float32)
            if "norm" in name:
                p.copy_(1.0 + 0.1 * r)
            elif "embed_tokens" in name or "lm_head" in name:
                p.copy_(0.5 * r)
            else:
                p.copy_(0.08 * r)
            if rounding is not None:
                p.copy_(p.to(rounding).float())
    return model


def llama():
    cfg = LlamaConfig(**SIZES, rope_parameters=dict(ROPE), attn_implementation="eager")
    model = fill(LlamaForCausalLM(cfg).eval(), 61)
    assert model.lm_head.weight is not model.model.embed_tokens.weight
    return model


def mistral(sliding_window):
    cfg = MistralConfig(
        **SIZES,
        rope_parameters=dict(ROPE),
        sliding_window=sliding_window,
        attn_implementation="eager",
    )
    return fill(MistralForCausalLM(cfg).eval(), 67, rounding=torch.float16)


def inputs():
    g = torch.Generator().manual_seed(5)
    x = torch.randn((2, 4, 64), generator=g, dtype=torch.float32)
    ids = torch.tensor(TOKENS, dtype=torch.int64)
    return x, ids


def forward(model, x, ids):
    """(last hidden state from inputs_embeds, logits from ids), both f32."""
    with torch.no_grad():
        hidden = model.model(inputs_embeds=x, use_cache=False).last_hidden_state
        logits = model(input_ids=ids, use_cache=False).logits
    return hidden.float(), logits.float()


def save(model, path, dtype=None, shard=None):
    """save_pretrained into `path`, fresh; `dtype` recasts every tensor of a
    single file."""
    shutil.rmtree(path, ignore_errors=True)
    kwargs = {"max_shard_size": shard} if shard else {}
    model.save_pretrained(path, safe_serialization=True, **kwargs)
    for extra in ("generation_config.json",):
        if os.path.exists(os.path.join(path, extra)):
            os.remove(os.path.join(path, extra))
    if dtype is not None:
        file = os.path.join(path, "model.safetensors")
        state = {k: v.to(dtype).contiguous() for k, v in load_file(file).items()}
        save_file(state, file, metadata={"format": "pt"})


def npy(path, name, a):
    np.save(os.path.join(path, name), a.numpy())


def main():
    x, ids = inputs()

    # Llama, F32, one file.
    model = llama()
    hidden, logits = forward(model, x, ids)
    base = os.path.join(OUT, "hf-llama-tiny")
    save(model, base)
    npy(base, "input.npy", x.to(torch.float32))
    npy(base, "tokens.npy", ids)
    npy(base, "hidden.npy", hidden)
    npy(base, "logits.npy", logits)

    # The same model in shards.
    sharded = os.path.join(OUT, "hf-llama-tiny-sharded")
    save(model, sharded, shard="150KB")
    shards = sorted(glob.glob(os.path.join(sharded, "model-*.safetensors")))
    assert 2 <= len(shards) <= 3, shards
    with open(os.path.join(sharded, "model.safetensors.index.json")) as f:
        index = json.load(f)
    assert len(set(index["weight_map"].values())) == len(shards)

    # The same model stored BF16; the oracle is the f32 forward on the
    # bf16-rounded weights.
    bf16 = os.path.join(OUT, "hf-llama-tiny-bf16")
    rounded = copy.deepcopy(model)
    with torch.no_grad():
        for p in rounded.parameters():
            p.copy_(p.to(torch.bfloat16).float())
    save(model, bf16, dtype=torch.bfloat16)
    hidden16, logits16 = forward(rounded, x, ids)
    npy(bf16, "hidden.npy", hidden16)
    npy(bf16, "logits.npy", logits16)
    print(f"llama: max |hidden| {hidden.abs().max():.4g}, max |logits| {logits.abs().max():.4g}")
    print(f"llama bf16: max |Δ hidden| from f32 {(hidden16 - hidden).abs().max():.4g}")

    # Mistral with a sliding window of 2, F16.
    windowed = mistral(2)
    hidden_w, logits_w = forward(windowed, x, ids)
    full = mistral(None)
    full.load_state_dict(windowed.state_dict())
    hidden_f, logits_f = forward(full, x, ids)
    d_hidden = (hidden_w - hidden_f).abs().max().item()
    d_logits = (logits_w - logits_f).abs().max().item()
    print(f"mistral: the window at T 4 moves hidden by {d_hidden:.4g}, logits by {d_logits:.4g}")
    assert d_hidden > 1e-2 and d_logits > 1e-2, "transformers did not apply the sliding window"
    # Position 0 and 1 read every earlier position either way.
    assert (hidden_w[:, :2] - hidden_f[:, :2]).abs().max().item() < 1e-5
    mpath = os.path.join(OUT, "hf-mistral-tiny")
    save(windowed, mpath, dtype=torch.float16)
    npy(mpath, "input.npy", x)
    npy(mpath, "tokens.npy", ids)
    npy(mpath, "hidden.npy", hidden_w)
    npy(mpath, "logits.npy", logits_w)
    with open(os.path.join(mpath, "config.json")) as f:
        assert json.load(f)["sliding_window"] == 2

    for d in (base, sharded, bf16, mpath):
        for p in sorted(glob.glob(os.path.join(d, "*"))):
            print(f"wrote {p}  {os.path.getsize(p)} bytes")


if __name__ == "__main__":
    main()
