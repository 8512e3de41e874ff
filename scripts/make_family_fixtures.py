"""Writes tiny Hugging Face checkpoints of the families beyond Llama with
transformers itself, and transformers' own forward as the oracle.

Each model is built by transformers (eager attention, no dropout), every
parameter drawn from one fixed generator (norm weights 1 + 0.1 randn, or
0.1 randn where the family stores the offset from 1 (Gemma); linears 0.08
randn; embeddings 0.5 randn), so nothing depends on transformers' init.

  hf-qwen2-tiny   Qwen2ForCausalLM: hidden 64, 4 heads, 2 K/V heads, q/k/v
                  biases (o none), SwiGLU 128, 2 layers, vocab 96, untied.
  hf-gemma2-tiny  Gemma2ForCausalLM: hidden 64, 4 heads of head_dim 16, 2 K/V
                  heads, GeGLU 128, sandwich norms (RMSNorm · (1 + w)),
                  embeddings · √64, query_pre_attn_scalar 32 (not head_dim),
                  attn_logit_softcapping 2 and final_logit_softcapping 3 (small,
                  so they bite), sliding_window 2 on layer 0 and full
                  attention on layer 1 (transformers' default layer_types),
                  tied head. The script checks that each of these changes the
                  output.
  hf-neox-tiny    GPTNeoXForCausalLM: hidden 64, 4 heads of 16, rotary_pct 0.5
                  (8 of 16 features turn), parallel residuals, LayerNorm,
                  biases, GELU 256, 2 layers, vocab 96, untied embed_out.
  hf-phi3-tiny    Phi3ForCausalLM: hidden 64, 4 heads, 2 K/V heads, fused
                  qkv_proj and gate_up_proj, SwiGLU 128, 2 layers, vocab 96.
  hf-mixtral-tiny MixtralForCausalLM: hidden 64, 4 heads, 2 K/V heads, 4 SwiGLU
                  experts of 32, each token to its top 2, 2 layers, vocab 96.
                  Written with the names of the published Mixtral checkpoints
                  (block_sparse_moe.gate, block_sparse_moe.experts.{e}.w1 gate,
                  w3 up, w2 down), which transformers 5 reads into its fused
                  expert tensors; the script loads the file back with
                  transformers and checks it gives the same logits.

Files in each folder (from the repository root, tests/fixtures/NAME/):

  config.json        as save_pretrained writes it
  model.safetensors  the state dict as save_pretrained writes it, F32
  input.npy          x0, (2, 4, 64) f32, N(0, 1): the stream entering block 1,
                     given as inputs_embeds (Gemma 2's √d scale is inside its
                     embedding module in transformers 5, so it applies to
                     token ids only, as shapetrace's tok_emb → input step)
  tokens.npy         token ids, (2, 4) int64, in [0, 96)
  hidden.npy         the base model's last_hidden_state from x0, the final
                     norm included, (2, 4, 64) f32
  logits.npy         model(input_ids=tokens).logits, (2, 4, 96) f32

Rerun from the repository root:

  python3 -m venv .venv && .venv/bin/pip install torch transformers safetensors numpy
  .venv/bin/python scripts/make_family_fixtures.py
"""

import os
import shutil

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from transformers import (
    Gemma2Config,
    Gemma2ForCausalLM,
    GPTNeoXConfig,
    GPTNeoXForCausalLM,
    MixtralConfig,
    MixtralForCausalLM,
    Phi3Config,
    Phi3ForCausalLM,
    Qwen2Config,
    Qwen2ForCausalLM,
)

OUT = "tests/fixtures"
TOKENS = [[5, 17, 42, 95], [0, 63, 8, 31]]
COMMON = dict(
    vocab_size=96,
    hidden_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    max_position_embeddings=16,
    attention_dropout=0.0,
    bos_token_id=1,
    eos_token_id=2,
    pad_token_id=None,
)


def fill(model, seed, offset_norms=False):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            r = torch.randn(p.shape, generator=g, dtype=torch.float32)
            if "norm" in name and name.endswith("weight"):
                p.copy_((0.0 if offset_norms else 1.0) + 0.1 * r)
            elif "norm" in name:
                p.copy_(0.1 * r)
            elif "embed" in name or "lm_head" in name:
                p.copy_(0.5 * r)
            else:
                p.copy_(0.08 * r)
    return model


def qwen2():
    cfg = Qwen2Config(
        **COMMON,
        num_key_value_heads=2,
        intermediate_size=128,
        rms_norm_eps=1e-5,
        tie_word_embeddings=False,
        attn_implementation="eager",
    )
    return fill(Qwen2ForCausalLM(cfg).eval(), 71)


def gemma2(**changes):
    fields = dict(
        COMMON,
        num_key_value_heads=2,
        head_dim=16,
        intermediate_size=128,
        rms_norm_eps=1e-6,
        query_pre_attn_scalar=32,
        attn_logit_softcapping=2.0,
        final_logit_softcapping=3.0,
        sliding_window=2,
        attn_implementation="eager",
    )
    fields.update(changes)
    return fill(Gemma2ForCausalLM(Gemma2Config(**fields)).eval(), 73, offset_norms=True)


def neox(**changes):
    fields = dict(
        COMMON,
        intermediate_size=256,
        hidden_act="gelu",
        rotary_pct=0.5,
        use_parallel_residual=True,
        layer_norm_eps=1e-5,
        tie_word_embeddings=False,
        hidden_dropout=0.0,
        attn_implementation="eager",
    )
    fields.update(changes)
    return fill(GPTNeoXForCausalLM(GPTNeoXConfig(**fields)).eval(), 79)


def phi3():
    cfg = Phi3Config(
        **COMMON,
        num_key_value_heads=2,
        intermediate_size=128,
        rms_norm_eps=1e-5,
        tie_word_embeddings=False,
        sliding_window=None,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_implementation="eager",
    )
    return fill(Phi3ForCausalLM(cfg).eval(), 83)


def mixtral():
    cfg = MixtralConfig(
        **COMMON,
        num_key_value_heads=2,
        intermediate_size=32,
        num_local_experts=4,
        num_experts_per_tok=2,
        rms_norm_eps=1e-5,
        tie_word_embeddings=False,
        sliding_window=None,
        router_jitter_noise=0.0,
        attn_implementation="eager",
    )
    model = fill(MixtralForCausalLM(cfg).eval(), 89)
    # The router decides which experts run: draw it wide, so no token's
    # top 2 are a near tie that rounding could flip.
    with torch.no_grad():
        g = torch.Generator().manual_seed(97)
        for layer in model.model.layers:
            w = layer.mlp.gate.weight
            w.copy_(0.8 * torch.randn(w.shape, generator=g))
    return model


def legacy_mixtral(model, path):
    """Rewrites the file save_pretrained wrote with the published names."""
    file = os.path.join(path, "model.safetensors")
    state = load_file(file)
    out = {}
    f = model.config.intermediate_size
    for name, t in state.items():
        if name.endswith("mlp.gate.weight"):
            out[name.replace("mlp.gate", "block_sparse_moe.gate")] = t
        elif name.endswith("mlp.experts.gate_up_proj"):
            prefix = name.replace("mlp.experts.gate_up_proj", "block_sparse_moe.experts")
            for e in range(t.shape[0]):
                out[f"{prefix}.{e}.w1.weight"] = t[e, :f].contiguous()
                out[f"{prefix}.{e}.w3.weight"] = t[e, f:].contiguous()
        elif name.endswith("mlp.experts.down_proj"):
            prefix = name.replace("mlp.experts.down_proj", "block_sparse_moe.experts")
            for e in range(t.shape[0]):
                out[f"{prefix}.{e}.w2.weight"] = t[e].contiguous()
        else:
            out[name] = t
    save_file(out, file, metadata={"format": "pt"})
    return set(out)


def inputs():
    g = torch.Generator().manual_seed(5)
    x = torch.randn((2, 4, 64), generator=g, dtype=torch.float32)
    return x, torch.tensor(TOKENS, dtype=torch.int64)


def forward(model, x, ids):
    base = model.base_model
    with torch.no_grad():
        hidden = base(inputs_embeds=x, use_cache=False).last_hidden_state
        logits = model(input_ids=ids, use_cache=False).logits
    return hidden.float(), logits.float()


def write(model, name, x, ids):
    path = os.path.join(OUT, name)
    shutil.rmtree(path, ignore_errors=True)
    model.save_pretrained(path, safe_serialization=True)
    extra = os.path.join(path, "generation_config.json")
    if os.path.exists(extra):
        os.remove(extra)
    hidden, logits = forward(model, x, ids)
    for file, a in [("input.npy", x), ("tokens.npy", ids), ("hidden.npy", hidden), ("logits.npy", logits)]:
        np.save(os.path.join(path, file), a.numpy())
    return hidden, logits


def differs(a, b, what):
    delta = (a - b).abs().max().item()
    print(f"  {what}: changes the output by {delta:.3g}")
    assert delta > 1e-3, what


def main():
    x, ids = inputs()
    write(qwen2(), "hf-qwen2-tiny", x, ids)
    print("hf-qwen2-tiny")

    model = gemma2()
    hidden, logits = write(model, "hf-gemma2-tiny", x, ids)
    print("hf-gemma2-tiny")
    state = model.state_dict()
    for what, change in [
        ("the window on layer 0", dict(sliding_window=64)),
        ("the attention soft cap", dict(attn_logit_softcapping=None)),
        ("the query scale", dict(query_pre_attn_scalar=16)),
        ("the logit soft cap", dict(final_logit_softcapping=None)),
        ("full attention on layer 1", dict(layer_types=["sliding_attention"] * 2)),
    ]:
        other = gemma2(**change)
        other.load_state_dict(state)
        h2, l2 = forward(other, x, ids)
        differs(torch.cat([hidden.flatten(), logits.flatten()]), torch.cat([h2.flatten(), l2.flatten()]), what)

    model = neox()
    hidden, _ = write(model, "hf-neox-tiny", x, ids)
    print("hf-neox-tiny")
    other = neox(rotary_pct=1.0)
    other.load_state_dict(model.state_dict())
    differs(hidden, forward(other, x, ids)[0], "the partial rotary share")

    write(phi3(), "hf-phi3-tiny", x, ids)
    print("hf-phi3-tiny")

    model = mixtral()
    _, logits = write(model, "hf-mixtral-tiny", x, ids)
    path = os.path.join(OUT, "hf-mixtral-tiny")
    names = legacy_mixtral(model, path)
    assert any(".block_sparse_moe.experts.3.w2.weight" in n for n in names)
    again = MixtralForCausalLM.from_pretrained(path, attn_implementation="eager").eval()
    with torch.no_grad():
        back = again(input_ids=ids, use_cache=False).logits.float()
    differs_not = (back - logits).abs().max().item()
    print(f"hf-mixtral-tiny (the published names read back by transformers: |Δ| {differs_not:.2g})")
    assert differs_not < 1e-6


if __name__ == "__main__":
    main()
