"""Writes the GGUF fixtures (llama.cpp's format) from the tiny Llama fixture.

Reads tests/fixtures/hf-llama-tiny (written by scripts/make_llama_fixture.py:
LlamaForCausalLM, hidden 64, 4 heads, 2 K/V heads, head_dim 16, intermediate
128, 2 layers, vocab 96, untied lm_head) and writes it with llama.cpp's own
`gguf` Python package (gguf==0.17.1) as llama.cpp's converter
(convert_hf_to_gguf.py) would: architecture llama, llama.cpp's tensor names
(token_embd, blk.N.attn_q, ..., output_norm, output), torch's [out, in]
matrices stored with ggml dims [in, out] (the writer reverses the shape), and
the converter's q/k row reorder applied to attn_q (4 heads) and attn_k (2
K/V heads): w.reshape(heads, 2, hd/2, in).swapaxes(1, 2).reshape(w.shape).

Files (from the repository root):

  tests/fixtures/gguf-llama-tiny/
    model-f32.gguf     every tensor F32 (0.35 MB, as the F32 safetensors file);
                       its metadata: general.name, llama.block_count 2,
                       context_length 16, embedding_length 64,
                       feed_forward_length 128, attention.head_count 4,
                       head_count_kv 2, key_length/value_length 16,
                       layer_norm_rms_epsilon 1e-5, rope.freq_base 10000,
                       rope.dimension_count 16, vocab_size 96, file_type
    model-q8_0.gguf    every 2-D weight Q8_0 (gguf.quants: blocks of 32 weights
                       along a row, an f16 scale d then 32 int8 q, 34 bytes),
                       the norms F32
    logits-q8_0.npy    transformers' logits (2, 4, 96) f32 from hf-llama-tiny's
                       tokens.npy, with every weight the Q8_0 file stores
                       replaced by its dequantised values (d * q)

The F32 file traced from hf-llama-tiny/tokens.npy gives hf-llama-tiny/logits.npy.

Rerun from the repository root:

  .venv/bin/pip install gguf==0.17.1   # beside torch and transformers
  .venv/bin/python scripts/make_gguf_fixture.py
"""

import json
import os

import gguf
import numpy as np
import torch
from gguf import GGMLQuantizationType as Q
from safetensors.torch import load_file
from transformers import LlamaConfig, LlamaForCausalLM

SRC = "tests/fixtures/hf-llama-tiny"
OUT = "tests/fixtures/gguf-llama-tiny"

# Hugging Face Llama name part -> llama.cpp's, per block.
BLOCK = {
    "input_layernorm.weight": "attn_norm.weight",
    "self_attn.q_proj.weight": "attn_q.weight",
    "self_attn.k_proj.weight": "attn_k.weight",
    "self_attn.v_proj.weight": "attn_v.weight",
    "self_attn.o_proj.weight": "attn_output.weight",
    "post_attention_layernorm.weight": "ffn_norm.weight",
    "mlp.gate_proj.weight": "ffn_gate.weight",
    "mlp.up_proj.weight": "ffn_up.weight",
    "mlp.down_proj.weight": "ffn_down.weight",
}
WHOLE = {
    "model.embed_tokens.weight": "token_embd.weight",
    "model.norm.weight": "output_norm.weight",
    "lm_head.weight": "output.weight",
}


def gguf_name(hf):
    if hf in WHOLE:
        return WHOLE[hf]
    parts = hf.split(".")
    assert parts[:2] == ["model", "layers"], hf
    return f"blk.{parts[2]}.{BLOCK['.'.join(parts[3:])]}"


def reorder(w, heads):
    """The converter's q/k row reorder: per head, the two halves interleaved."""
    return w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def write(path, cfg, state, qtype):
    """Writes `state` (HF names, numpy f32) as a llama GGUF file; 2-D weights as `qtype`."""
    heads, kv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    w = gguf.GGUFWriter(path, "llama")
    w.add_name("hf-llama-tiny")
    w.add_block_count(cfg["num_hidden_layers"])
    w.add_context_length(cfg["max_position_embeddings"])
    w.add_embedding_length(cfg["hidden_size"])
    w.add_feed_forward_length(cfg["intermediate_size"])
    w.add_head_count(heads)
    w.add_head_count_kv(kv)
    w.add_key_length(cfg["head_dim"])
    w.add_value_length(cfg["head_dim"])
    w.add_layer_norm_rms_eps(cfg["rms_norm_eps"])
    w.add_rope_freq_base(cfg["rope_parameters"]["rope_theta"])
    w.add_rope_dimension_count(cfg["head_dim"])
    w.add_vocab_size(cfg["vocab_size"])
    w.add_file_type(gguf.LlamaFileType.ALL_F32 if qtype == Q.F32 else gguf.LlamaFileType.MOSTLY_Q8_0)
    for hf, t in state.items():
        name = gguf_name(hf)
        if name.endswith("attn_q.weight"):
            t = reorder(t, heads)
        elif name.endswith("attn_k.weight"):
            t = reorder(t, kv)
        if t.ndim == 2 and qtype != Q.F32:
            w.add_tensor(name, gguf.quants.quantize(t, qtype), raw_dtype=qtype)
        else:
            w.add_tensor(name, np.ascontiguousarray(t, dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(f"{SRC}/config.json") as f:
        cfg = json.load(f)
    state = {k: v.numpy() for k, v in load_file(f"{SRC}/model.safetensors").items()}
    write(f"{OUT}/model-f32.gguf", cfg, state, Q.F32)
    write(f"{OUT}/model-q8_0.gguf", cfg, state, Q.Q8_0)

    # transformers on the weights the Q8_0 file holds, dequantised.
    deq = {
        k: (gguf.quants.dequantize(gguf.quants.quantize(v, Q.Q8_0), Q.Q8_0) if v.ndim == 2 else v)
        for k, v in state.items()
    }
    config = LlamaConfig.from_pretrained(SRC, attn_implementation="eager")
    model = LlamaForCausalLM(config).eval()
    model.load_state_dict({k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in deq.items()})
    tokens = torch.from_numpy(np.load(f"{SRC}/tokens.npy"))
    with torch.no_grad():
        logits = model(input_ids=tokens).logits.numpy().astype(np.float32)
    np.save(f"{OUT}/logits-q8_0.npy", logits)
    # The dequantised weights differ from the originals, and so do the logits.
    base = np.load(f"{SRC}/logits.npy")
    print("Q8_0 logits differ from the F32 ones by", float(np.abs(logits - base).max()))
    for name in sorted(os.listdir(OUT)):
        print(name, os.path.getsize(f"{OUT}/{name}"), "bytes")


if __name__ == "__main__":
    main()
