//! Hugging Face OPT names (`OPTForCausalLM`: `model.decoder.…`; a bare
//! `OPTModel`: `decoder.…`), read with the config.json beside them.
//!
//! ```text
//! file (nn.Linear [out, in])                                 ours ((in, out)), blocks from 1
//! model.decoder.embed_tokens.weight     (V, d)                → wte
//! model.decoder.embed_positions.weight  (ctx + 2, d)          → wpe (position t reads row t + 2)
//! model.decoder.layers.{i}.self_attn_layer_norm.{weight,bias} → block{i+1}.ln_1
//! model.decoder.layers.{i}.self_attn.{q,k,v}_proj.{weight,bias} → block{i+1}.attn.{q,k,v}_proj
//! model.decoder.layers.{i}.self_attn.out_proj.{weight,bias}   → block{i+1}.attn.out
//! model.decoder.layers.{i}.final_layer_norm.{weight,bias}     → block{i+1}.ln_2 (the MLP's norm)
//! model.decoder.layers.{i}.fc1.{weight,bias}  (d_ff, d)       → block{i+1}.mlp.up
//! model.decoder.layers.{i}.fc2.{weight,bias}  (d, d_ff)       → block{i+1}.mlp.down
//! model.decoder.final_layer_norm.{weight,bias}                → ln_f (with do_layer_norm_before)
//! lm_head.weight (V, d) → lm_head.weight (d, V); absent when tied
//! ```
//!
//! Its q, k, v projections are named as Llama's: what tells the two apart
//! is the MLP's `fc1` and `fc2` ([`super::names::MARKS`]).

use super::expect::{Expect, List};
use crate::config::ModelConfig;

/// Every tensor an OPT checkpoint of `cfg` holds, under prefix `r`
/// (`model.decoder.` or `decoder.`).
#[must_use]
pub fn expected(r: &str, cfg: &ModelConfig) -> Vec<Expect> {
    let (d, f, hq) = (cfg.d_model, cfg.mlp.d_ff, cfg.attn_width());
    let kv = cfg.attention.kv_heads * cfg.head_dim();
    let (bias, nb) = (cfg.bias, cfg.norm_bias());
    let mut l = List::default();
    for i in 0..cfg.layers {
        let (fp, op) = (format!("{r}layers.{i}"), format!("block{}", i + 1));
        l.norm(
            &format!("{fp}.self_attn_layer_norm"),
            &format!("{op}.ln_1"),
            d,
            nb,
        );
        for (file, ours, width) in [
            ("q_proj", "q_proj", hq),
            ("k_proj", "k_proj", kv),
            ("v_proj", "v_proj", kv),
        ] {
            l.linear(
                &format!("{fp}.self_attn.{file}"),
                &format!("{op}.attn.{ours}"),
                (d, width),
                bias,
            );
        }
        l.linear(
            &format!("{fp}.self_attn.out_proj"),
            &format!("{op}.attn.out"),
            (hq, d),
            bias,
        );
        l.norm(
            &format!("{fp}.final_layer_norm"),
            &format!("{op}.ln_2"),
            d,
            nb,
        );
        l.linear(
            &format!("{fp}.fc1"),
            &format!("{op}.mlp.up"),
            (d, f),
            cfg.mlp_bias(),
        );
        l.linear(
            &format!("{fp}.fc2"),
            &format!("{op}.mlp.down"),
            (f, d),
            cfg.mlp_bias(),
        );
    }
    if cfg.norms.final_norm {
        l.norm(&format!("{r}final_layer_norm"), "ln_f", d, nb);
    }
    let v = cfg.vocab.size.unwrap_or(0);
    l.table(
        format!("{r}embed_positions.weight"),
        vec![cfg.positions(), d],
        "wpe",
        false,
    );
    l.0.extend(super::expect::ends(
        format!("{r}embed_tokens.weight"),
        "lm_head.weight",
        v,
        d,
    ));
    l.0
}
