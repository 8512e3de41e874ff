"""Writes tiny BERT, OPT and Falcon checkpoints with transformers itself,
under transformers' own tensor names, with transformers' forward as the
oracle, single-file and sharded.

Each model is built by transformers (eager attention, no dropout), every
parameter drawn from one fixed generator (norm weights 1 + 0.1 randn, norm
biases 0.1 randn, embeddings 0.5 randn, linears 0.08 randn, linear biases
0.05 randn), so nothing depends on transformers' init. Hidden 64, 4 heads,
2 layers, vocab 96, 16 positions.

  hf-bert-tiny          BertModel: Post-LN encoder, GELU 128, token types
                        2, the embedding LayerNorm, the pooler.
  hf-bert-tiny-sharded  the same model as save_pretrained(max_shard_size=...)
                        shards it, beside a model.safetensors.index.json.
  hf-bert-tiny-no-types the same file without the token-type table (a
                        checkpoint that lacks a tensor the model uses).
  hf-opt-tiny           OPTForCausalLM: Pre-LN, ReLU 128, positions from row 2
                        of an 18-row table, tied head.
  hf-opt-tiny-post      the same family with do_layer_norm_before false
                        (Post-LN, no final norm) and no linear biases
                        (enable_bias false), sharded.
  hf-falcon-tiny        FalconForCausalLM, Falcon-7B's architecture: one
                        K/V head (multi_query), attention and MLP in
                        parallel reading one norm, rotary, no linear biases,
                        tied head.
  hf-falcon-tiny-new    Falcon-40B's new decoder architecture: 2 K/V heads,
                        two norms (ln_attn, ln_mlp), linear biases, untied,
                        sharded.
  hf-falcon-tiny-new-nobias  the same architecture without biases, as
                        Falcon-40B is published, tied.
  hf-falcon-tiny-seq    the old architecture with a K/V head per head
                        (multi_query false: each head's q, k, v side by
                        side), linear biases, and attention then the MLP in
                        turn (parallel_attn false: input_layernorm and
                        post_attention_layernorm).
  hf-gemma-tiny         GemmaForCausalLM (Gemma 1): GeGLU 128, RMSNorm ·
                        (1 + w), embeddings · √d, 1 K/V head, head_dim 16,
                        tied.

Files in each folder (from the repository root, tests/fixtures/NAME/):

  config.json        as save_pretrained writes it
  model.safetensors  the state dict as save_pretrained writes it, F32 (or
                     shards and their index)
  tokens.npy         token ids, (2, 4) int64, in [0, 96)
  output.npy         from the token ids: BERT's pooler_output (2, 64); the
                     logits (2, 4, 96) otherwise, f32

Rerun from the repository root:

  python3 -m venv .venv && .venv/bin/pip install -r scripts/requirements.txt
  .venv/bin/python scripts/make_checkpoint_fixtures.py
"""

import os
import shutil

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from transformers import (
    BertConfig,
    BertModel,
    FalconConfig,
    FalconForCausalLM,
    GemmaConfig,
    GemmaForCausalLM,
    OPTConfig,
    OPTForCausalLM,
)

OUT = "tests/fixtures"
TOKENS = [[5, 17, 42, 95], [0, 63, 8, 31]]
SIZES = dict(
    vocab_size=96,
    hidden_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    max_position_embeddings=16,
)
# A shard size that splits the tiny models in two or more files.
SHARD = "200KB"


def fill(model, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            r = torch.randn(p.shape, generator=g, dtype=torch.float32)
            norm = "norm" in name.lower() or "ln_" in name
            if norm and name.endswith("weight"):
                p.copy_(1.0 + 0.1 * r)
            elif norm:
                p.copy_(0.1 * r)
            elif "embed" in name or "lm_head" in name:
                p.copy_(0.5 * r)
            elif name.endswith("bias"):
                p.copy_(0.05 * r)
            else:
                p.copy_(0.08 * r)
    return model


def bert():
    cfg = BertConfig(
        **SIZES,
        intermediate_size=128,
        hidden_act="gelu",
        type_vocab_size=2,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        layer_norm_eps=1e-12,
        pad_token_id=0,
        attn_implementation="eager",
    )
    return fill(BertModel(cfg).eval(), 101)


def opt(**changes):
    fields = dict(
        SIZES,
        ffn_dim=128,
        activation_function="relu",
        do_layer_norm_before=True,
        dropout=0.0,
        attention_dropout=0.0,
        activation_dropout=0.0,
        layerdrop=0.0,
        word_embed_proj_dim=64,
        pad_token_id=1,
        attn_implementation="eager",
    )
    fields.update(changes)
    return fill(OPTForCausalLM(OPTConfig(**fields)).eval(), 103)


def falcon(**changes):
    fields = dict(
        SIZES,
        ffn_hidden_size=128,
        activation="gelu",
        layer_norm_epsilon=1e-5,
        bias=False,
        alibi=False,
        multi_query=True,
        parallel_attn=True,
        new_decoder_architecture=False,
        hidden_dropout=0.0,
        attention_dropout=0.0,
        rope_theta=10000.0,
        attn_implementation="eager",
    )
    fields.update(changes)
    return fill(FalconForCausalLM(FalconConfig(**fields)).eval(), 107)


def gemma():
    cfg = GemmaConfig(
        **SIZES,
        num_key_value_heads=1,
        head_dim=16,
        intermediate_size=128,
        hidden_activation="gelu_pytorch_tanh",
        rms_norm_eps=1e-6,
        attention_dropout=0.0,
        pad_token_id=0,
        attn_implementation="eager",
    )
    model = fill(GemmaForCausalLM(cfg).eval(), 109)
    # Gemma stores each norm's offset from 1: draw it around 0.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.sub_(1.0)
    return model


def forward(model, ids):
    with torch.no_grad():
        if isinstance(model, BertModel):
            types = torch.zeros_like(ids)
            out = model(input_ids=ids, token_type_ids=types).pooler_output
        else:
            out = model(input_ids=ids, use_cache=False).logits
    return out.float()


def write(model, name, ids, shard=None):
    path = os.path.join(OUT, name)
    shutil.rmtree(path, ignore_errors=True)
    kwargs = {"max_shard_size": shard} if shard else {}
    model.save_pretrained(path, safe_serialization=True, **kwargs)
    extra = os.path.join(path, "generation_config.json")
    if os.path.exists(extra):
        os.remove(extra)
    if shard:
        assert os.path.exists(os.path.join(path, "model.safetensors.index.json")), name
    out = forward(model, ids)
    np.save(os.path.join(path, "tokens.npy"), ids.numpy())
    np.save(os.path.join(path, "output.npy"), out.numpy())
    print(f"{name}: output {tuple(out.shape)}")
    return path


def without(src, dst, drop):
    """Copies fixture `src` to `dst` with the tensors named in `drop` left out."""
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    file = os.path.join(dst, "model.safetensors")
    state = load_file(file)
    for name in drop:
        del state[name]
    save_file(state, file, metadata={"format": "pt"})
    print(f"{os.path.basename(dst)}: without {', '.join(drop)}")


def main():
    ids = torch.tensor(TOKENS, dtype=torch.int64)
    model = bert()
    path = write(model, "hf-bert-tiny", ids)
    write(model, "hf-bert-tiny-sharded", ids, SHARD)
    names = load_file(os.path.join(path, "model.safetensors"))
    types = [n for n in names if n.endswith("token_type_embeddings.weight")]
    assert len(types) == 1, types
    without(path, os.path.join(OUT, "hf-bert-tiny-no-types"), types)

    write(opt(), "hf-opt-tiny", ids)
    write(opt(do_layer_norm_before=False, enable_bias=False), "hf-opt-tiny-post", ids, SHARD)

    write(falcon(), "hf-falcon-tiny", ids)
    new = falcon(
        new_decoder_architecture=True,
        num_kv_heads=2,
        bias=True,
        tie_word_embeddings=False,
    )
    write(new, "hf-falcon-tiny-new", ids, SHARD)
    write(falcon(new_decoder_architecture=True, num_kv_heads=2), "hf-falcon-tiny-new-nobias", ids)
    seq = falcon(multi_query=False, bias=True, parallel_attn=False)
    write(seq, "hf-falcon-tiny-seq", ids)
    write(gemma(), "hf-gemma-tiny", ids)


if __name__ == "__main__":
    main()
