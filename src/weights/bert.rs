//! Hugging Face BERT names (`BertModel`, or `bert.` inside a
//! `BertFor…` model), read with the config.json beside them.
//!
//! ```text
//! file (nn.Linear [out, in])                                  ours ((in, out)), blocks from 1
//! embeddings.word_embeddings.weight        (V, d)              → wte
//! embeddings.position_embeddings.weight    (ctx, d)            → wpe
//! embeddings.token_type_embeddings.weight  (types, d)          → wtt
//! embeddings.LayerNorm.{weight,bias}       (d)                 → ln_emb
//! encoder.layer.{i}.attention.self.{query,key,value}.{weight,bias} → block{i+1}.attn.{q,k,v}_proj
//! encoder.layer.{i}.attention.output.dense.{weight,bias}       → block{i+1}.attn.out
//! encoder.layer.{i}.attention.output.LayerNorm.{weight,bias}   → block{i+1}.ln_1 (Post-LN)
//! encoder.layer.{i}.intermediate.dense.{weight,bias} (d_ff, d) → block{i+1}.mlp.up
//! encoder.layer.{i}.output.dense.{weight,bias}       (d, d_ff) → block{i+1}.mlp.down
//! encoder.layer.{i}.output.LayerNorm.{weight,bias}             → block{i+1}.ln_2
//! pooler.dense.{weight,bias}               (d, d)              → pooler
//! ```
//!
//! A `BertForPreTraining` or `BertForMaskedLM` file also holds its heads
//! under `cls.` (the masked-LM transform and decoder, the next-sentence
//! classifier): the trace ends in the pooler, so they are left unread,
//! and a note says how many.

use super::expect::{Expect, List};
use crate::config::ModelConfig;

/// Every tensor a BERT checkpoint of `cfg` holds, under prefix `r`.
#[must_use]
pub fn expected(r: &str, cfg: &ModelConfig) -> Vec<Expect> {
    let (d, f) = (cfg.d_model, cfg.mlp.d_ff);
    let (v, bias) = (cfg.vocab.size.unwrap_or(0), cfg.bias);
    let mut l = List::default();
    let e = format!("{r}embeddings");
    l.table(
        format!("{e}.word_embeddings.weight"),
        vec![v, d],
        "wte",
        false,
    );
    l.table(
        format!("{e}.position_embeddings.weight"),
        vec![cfg.positions(), d],
        "wpe",
        false,
    );
    let types = cfg.vocab.token_types.unwrap_or(0);
    l.same(
        format!("{e}.token_type_embeddings.weight"),
        vec![types, d],
        "wtt".into(),
    );
    l.norm(&format!("{e}.LayerNorm"), "ln_emb", d, cfg.norm_bias());
    for i in 0..cfg.layers {
        let (fp, op) = (format!("{r}encoder.layer.{i}"), format!("block{}", i + 1));
        for (file, ours) in [("query", "q_proj"), ("key", "k_proj"), ("value", "v_proj")] {
            let width = if file == "query" {
                cfg.attn_width()
            } else {
                cfg.attention.kv_heads * cfg.head_dim()
            };
            let (file, ours) = (
                format!("{fp}.attention.self.{file}"),
                format!("{op}.attn.{ours}"),
            );
            l.linear(&file, &ours, (d, width), bias);
        }
        let out = format!("{fp}.attention.output");
        l.linear(
            &format!("{out}.dense"),
            &format!("{op}.attn.out"),
            (cfg.attn_width(), d),
            bias,
        );
        l.norm(
            &format!("{out}.LayerNorm"),
            &format!("{op}.ln_1"),
            d,
            cfg.norm_bias(),
        );
        let mlp_bias = cfg.mlp_bias();
        l.linear(
            &format!("{fp}.intermediate.dense"),
            &format!("{op}.mlp.up"),
            (d, f),
            mlp_bias,
        );
        l.linear(
            &format!("{fp}.output.dense"),
            &format!("{op}.mlp.down"),
            (f, d),
            mlp_bias,
        );
        l.norm(
            &format!("{fp}.output.LayerNorm"),
            &format!("{op}.ln_2"),
            d,
            cfg.norm_bias(),
        );
    }
    l.linear(&format!("{r}pooler.dense"), "pooler", (d, d), bias);
    l.0
}

/// Whether `name` is a head of a `BertFor…` model (`cls.…`), which the
/// trace, ending in the pooler, does not read.
#[must_use]
pub fn is_head(name: &str) -> bool {
    name.starts_with("cls.")
}

/// Whether `name` is a buffer some files save beside the weights (the
/// embeddings' `position_ids` and `token_type_ids`, int64).
#[must_use]
pub fn is_buffer(r: &str, name: &str) -> bool {
    [".position_ids", ".token_type_ids"]
        .iter()
        .any(|b| name == format!("{r}embeddings{b}"))
}
