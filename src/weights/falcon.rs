//! Hugging Face Falcon names (`FalconForCausalLM`: `transformer.h.{i}.…`;
//! a bare `FalconModel`: `h.{i}.…`), read with the config.json beside
//! them: whether the fused projection is multi-query or grouped, and the
//! rotary θ, are in no tensor.
//!
//! ```text
//! file (nn.Linear [out, in])                                  ours ((in, out)), blocks from 1
//! transformer.word_embeddings.weight (V, d)                    → wte
//! transformer.h.{i}.self_attention.query_key_value.weight ((h+2·kv)·hd, d) → block{i+1}.attn.qkv_proj
//!   (Falcon-7B's multi-query [q; k; v], Falcon-40B's [q_g; k_g; v_g] per K/V group)
//! transformer.h.{i}.self_attention.dense.weight (d, h·hd)      → block{i+1}.attn.out
//! transformer.h.{i}.mlp.dense_h_to_4h.weight  (d_ff, d)        → block{i+1}.mlp.up
//! transformer.h.{i}.mlp.dense_4h_to_h.weight  (d, d_ff)        → block{i+1}.mlp.down
//!   (.bias of each linear, (out), with bias true)
//! transformer.h.{i}.input_layernorm.{weight,bias}  → block{i+1}.ln_1 (one norm, or the
//!   attention's when the block is sequential: then post_attention_layernorm → ln_2)
//! transformer.h.{i}.ln_attn / ln_mlp.{weight,bias} → block{i+1}.ln_1 / ln_2 (two norms)
//! transformer.ln_f.{weight,bias} → ln_f;  lm_head.weight (V, d) → lm_head.weight (d, V), absent when tied
//! ```
//!
//! Its blocks are named as GPT-2's `h.{i}`: what tells them apart is
//! its `self_attention` ([`super::names::MARKS`]).

use super::expect::{Expect, List};
use crate::config::ModelConfig;

/// Every tensor a Falcon checkpoint of `cfg` holds, under prefix `r`.
#[must_use]
pub fn expected(r: &str, cfg: &ModelConfig) -> Vec<Expect> {
    let (d, f, hq) = (cfg.d_model, cfg.mlp.d_ff, cfg.attn_width());
    let qkv = hq + 2 * cfg.attention.kv_heads * cfg.head_dim();
    let (bias, nb) = (cfg.bias, cfg.norm_bias());
    // One norm read by both sublayers (Falcon-7B); two in parallel
    // (ln_attn, ln_mlp: Falcon-40B); two in turn (a sequential block).
    let norms: &[(&str, &str)] = match (cfg.norms.shared, cfg.parallel) {
        (true, _) => &[("input_layernorm", "ln_1")],
        (false, true) => &[("ln_attn", "ln_1"), ("ln_mlp", "ln_2")],
        (false, false) => &[
            ("input_layernorm", "ln_1"),
            ("post_attention_layernorm", "ln_2"),
        ],
    };
    let mut l = List::default();
    for i in 0..cfg.layers {
        let (fp, op) = (format!("{r}h.{i}"), format!("block{}", i + 1));
        for (file, ours) in norms {
            l.norm(&format!("{fp}.{file}"), &format!("{op}.{ours}"), d, nb);
        }
        let attn = format!("{fp}.self_attention");
        l.linear(
            &format!("{attn}.query_key_value"),
            &format!("{op}.attn.qkv_proj"),
            (d, qkv),
            bias,
        );
        l.linear(
            &format!("{attn}.dense"),
            &format!("{op}.attn.out"),
            (hq, d),
            bias,
        );
        l.linear(
            &format!("{fp}.mlp.dense_h_to_4h"),
            &format!("{op}.mlp.up"),
            (d, f),
            cfg.mlp_bias(),
        );
        l.linear(
            &format!("{fp}.mlp.dense_4h_to_h"),
            &format!("{op}.mlp.down"),
            (f, d),
            cfg.mlp_bias(),
        );
    }
    if cfg.norms.final_norm {
        l.norm(&format!("{r}ln_f"), "ln_f", d, nb);
    }
    let v = cfg.vocab.size.unwrap_or(0);
    l.0.extend(super::expect::ends(
        format!("{r}word_embeddings.weight"),
        "lm_head.weight",
        v,
        d,
    ));
    l.0
}
