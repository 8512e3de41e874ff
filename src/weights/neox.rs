//! Hugging Face GPT-NeoX names (Pythia), read with the config.json beside
//! them: the rotary share and the parallel residuals are in no tensor.
//!
//! ```text
//! file (nn.Linear [out, in])                                 ours ((in, out)), blocks from 1
//! gpt_neox.layers.{i}.input_layernorm.{weight,bias}  (d)      → block{i+1}.ln_1
//! gpt_neox.layers.{i}.attention.query_key_value.weight (3·d, d) → block{i+1}.attn.qkv_proj.weight
//!   (each head's q, k, v side by side: split by the trace's `columns` steps)
//! gpt_neox.layers.{i}.attention.dense.weight         (d, d)   → block{i+1}.attn.out.weight
//! gpt_neox.layers.{i}.post_attention_layernorm.{weight,bias} → block{i+1}.ln_2
//! gpt_neox.layers.{i}.mlp.dense_h_to_4h.weight       (d_ff, d) → block{i+1}.mlp.up.weight
//! gpt_neox.layers.{i}.mlp.dense_4h_to_h.weight       (d, d_ff) → block{i+1}.mlp.down.weight
//!   (.bias of each linear, (out); attention's with attention_bias)
//! gpt_neox.final_layer_norm.{weight,bias} → ln_f;  gpt_neox.embed_in.weight (V, d) → wte
//! embed_out.weight (V, d) → lm_head.weight (d, V); absent when tied
//! ```
//!
//! Older files hold each layer's `attention.bias`, `attention.masked_bias`
//! and `attention.rotary_emb.inv_freq` buffers, which are skipped.

use super::expect::{Expect, Target};
use crate::config::ModelConfig;

/// Every tensor a GPT-NeoX checkpoint of `cfg` holds, under prefix `r`.
#[must_use]
pub fn expected(r: &str, cfg: &ModelConfig) -> Vec<Expect> {
    let (d, f) = (cfg.d_model, cfg.mlp.d_ff);
    let qkv = cfg.attn_width() + 2 * cfg.attention.kv_heads * cfg.head_dim();
    let mut out = Vec::new();
    let mut push = |name: String, shape: Vec<usize>, target| {
        out.push(Expect {
            name,
            shape,
            target,
        });
    };
    let norm = |push: &mut dyn FnMut(String, Vec<usize>, Target), file: &str, ours: &str| {
        for part in ["weight", "bias"] {
            push(
                format!("{file}.{part}"),
                vec![d],
                Target::Same(format!("{ours}.{part}")),
            );
        }
    };
    for i in 0..cfg.layers {
        let (fp, op) = (format!("{r}layers.{i}"), format!("block{}", i + 1));
        norm(
            &mut push,
            &format!("{fp}.input_layernorm"),
            &format!("{op}.ln_1"),
        );
        // (file name, our name, our (in, out), whether it has a bias)
        let linears = [
            (
                "attention.query_key_value",
                "attn.qkv_proj",
                (d, qkv),
                cfg.bias,
            ),
            (
                "attention.dense",
                "attn.out",
                (cfg.attn_width(), d),
                cfg.bias,
            ),
            ("mlp.dense_h_to_4h", "mlp.up", (d, f), cfg.mlp_bias()),
            ("mlp.dense_4h_to_h", "mlp.down", (f, d), cfg.mlp_bias()),
        ];
        for (file, ours, (fan_in, fan_out), bias) in linears {
            push(
                format!("{fp}.{file}.weight"),
                vec![fan_out, fan_in],
                Target::Transposed(format!("{op}.{ours}.weight")),
            );
            if bias {
                push(
                    format!("{fp}.{file}.bias"),
                    vec![fan_out],
                    Target::Same(format!("{op}.{ours}.bias")),
                );
            }
            if file == "attention.dense" && !cfg.norms.shared {
                norm(
                    &mut push,
                    &format!("{fp}.post_attention_layernorm"),
                    &format!("{op}.ln_2"),
                );
            }
        }
    }
    if cfg.norms.final_norm {
        norm(&mut push, &format!("{r}final_layer_norm"), "ln_f");
    }
    let v = cfg.vocab.size.unwrap_or(0);
    out.extend(super::expect::ends(
        format!("{r}embed_in.weight"),
        "embed_out.weight",
        v,
        d,
    ));
    out
}

/// Whether `name` is a buffer older files save beside the weights (each
/// layer's causal mask, its masked value and its rotary `inv_freq`).
#[must_use]
pub fn is_buffer(r: &str, name: &str) -> bool {
    name.starts_with(&format!("{r}layers."))
        && [
            ".attention.bias",
            ".attention.masked_bias",
            ".attention.rotary_emb.inv_freq",
        ]
        .iter()
        .any(|b| name.ends_with(b))
}
