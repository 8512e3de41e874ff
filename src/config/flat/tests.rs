//! The written form does not move: every preset and a config with every
//! part set go Flat → [`ModelConfig`] → Flat unchanged, and a written 0
//! reads as the part's `None`.

use super::Flat;
use crate::config::preset::{PRESETS, by_name};
use crate::config::{Mixture, ModelConfig, RopeScaling};

/// Flat → ModelConfig → Flat, and the TOML text written from either.
fn round_trip(flat: &Flat) -> ModelConfig {
    let cfg = ModelConfig::from(flat.clone());
    assert_eq!(&Flat::from(cfg.clone()), flat);
    let text = toml::to_string(flat).unwrap();
    assert_eq!(toml::to_string(&cfg).unwrap(), text);
    assert_eq!(toml::from_str::<ModelConfig>(&text).unwrap(), cfg);
    assert_eq!(
        serde_json::to_string(&cfg).unwrap(),
        serde_json::to_string(flat).unwrap()
    );
    cfg
}

/// `text` read as the written form.
fn flat(text: &str) -> Flat {
    toml::from_str(text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_preset_goes_flat_to_parts_to_flat_unchanged() {
    for (name, _) in PRESETS {
        let text = toml::to_string(&by_name(name).unwrap()).unwrap();
        round_trip(&flat(&text));
    }
}

/// The lesson's keys with every part's optional value set, each to a
/// value of its own, so that two swapped or dropped mappings show.
const EVERY_PART: &str = r#"
batch = 2
seq = 4
d_model = 64
heads = 4
head_dim = 24
kv_heads = 2
d_ff = 96
layers = 2
act = "swiglu"
norm = "layernorm"
placement = "pre"
bias = false
mlp_bias = true
norm_bias = false
final_norm = true
vocab = 11
context = 8
pos_emb = "rope"
token_types = 3
rotary_dims = 6
rope_scaling = { kind = "linear", factor = 2.0 }
window = 5
full_every = 7
query_scale = 9
attn_softcap = 50.0
logit_softcap = 30.0
experts = 10
top_k = 12
dtype = "f32"
seed = 0
eps = 1e-5
"#;

#[test]
fn a_config_with_every_part_set_goes_flat_to_parts_to_flat_unchanged() {
    let cfg = round_trip(&flat(EVERY_PART));
    let a = &cfg.attention;
    assert_eq!(
        (a.head_dim, a.window, a.full_every, a.query_scale, a.softcap),
        (Some(24), Some(5), Some(7), Some(9), Some(50.0))
    );
    assert_eq!((cfg.mlp.bias, cfg.norms.bias), (Some(true), Some(false)));
    let p = &cfg.positions;
    assert_eq!(
        (p.context, p.rotary_dims, p.rope_scaling),
        (Some(8), Some(6), Some(RopeScaling::Linear { factor: 2.0 }))
    );
    let v = &cfg.vocab;
    assert_eq!(
        (v.size, v.token_types, v.logit_softcap),
        (Some(11), Some(3), Some(30.0))
    );
    let mixture = Mixture {
        experts: 10,
        top_k: 12,
    };
    assert_eq!(cfg.mixture, Some(mixture));
}

#[test]
fn a_written_0_reads_as_none_and_is_written_back_as_0() {
    let zeros = [
        "head_dim",
        "context",
        "token_types",
        "rotary_dims",
        "window",
        "full_every",
        "query_scale",
        "experts",
    ]
    .iter()
    .fold(EVERY_PART.to_string(), |t, key| {
        t.lines()
            .map(|l| match l.split_once(" = ") {
                Some((k, _)) if k == *key => format!("{k} = 0"),
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    })
    .replace("attn_softcap = 50.0", "attn_softcap = 0.0")
    .replace("logit_softcap = 30.0", "logit_softcap = 0.0")
    // A dense MLP keeps no top_k: it is written as its default.
    .replace("top_k = 12", "top_k = 2");
    assert_ne!(zeros, EVERY_PART);
    let cfg = round_trip(&flat(&zeros));
    let a = &cfg.attention;
    assert_eq!(
        (a.head_dim, a.window, a.full_every, a.query_scale, a.softcap),
        (None, None, None, None, None)
    );
    let (p, v) = (&cfg.positions, &cfg.vocab);
    assert_eq!((p.context, p.rotary_dims), (None, None));
    assert_eq!((v.token_types, v.logit_softcap), (None, None));
    assert_eq!(cfg.mixture, None);
    // What the parts' Nones stand for.
    assert_eq!(
        (
            cfg.head_dim(),
            cfg.context(),
            cfg.rotary_dims(),
            cfg.score_scale()
        ),
        (16, 4, 16, 16)
    );
    assert_eq!((cfg.window_at(1), cfg.experts()), (None, 0));
    let text = toml::to_string(&cfg).unwrap();
    for line in ["window = 0\n", "experts = 0\n", "attn_softcap = 0.0\n"] {
        assert!(text.contains(line), "{line} in {text}");
    }
}

#[test]
fn a_window_reads_into_the_attention_part_and_full_every_lifts_it() {
    let cfg = ModelConfig::from(flat(
        &EVERY_PART.replace("full_every = 7", "full_every = 2"),
    ));
    assert_eq!(
        (cfg.window_at(1), cfg.window_at(2), cfg.window_at(3)),
        (Some(5), None, Some(5))
    );
}
