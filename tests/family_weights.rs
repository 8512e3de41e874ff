//! Tiny Hugging Face checkpoints of the families beyond Llama (written by
//! scripts/make_family_fixtures.py with transformers, F32), each traced with
//! the config.json beside it: from x0 to transformers' last hidden state and
//! from token ids to its logits, within 1e-4.
//!
//! - Qwen2: biases on q, k and v only.
//! - Gemma 2: sandwich norms scaled by 1 + w, GeGLU, embeddings · √d, the
//!   query scale 1/√32 (head_dim 16), soft caps on scores and logits, a
//!   window of 2 on block 1 and full attention on block 2.
//! - GPT-NeoX: the fused per-head query_key_value and its split, 8 of 16
//!   features rotated, parallel residuals.
//! - Phi-3: fused qkv_proj and gate_up_proj and their splits.
//! - Mixtral: the router and 4 experts (top 2) under the published
//!   checkpoints' names (block_sparse_moe.experts.{e}.w1, w3, w2): the
//!   transformers oracle of the mixture block.
//!
//! The script checks that each Gemma 2 setting and the partial rotary share
//! change transformers' output (by 0.02 to 30), so a model that ignored one
//! would miss the oracle by more than the tolerance.

mod common;
use common::largest_delta;
use ndarray::ArrayD;
use shapetrace::load::{Sources, resolve};
use shapetrace::{Overlay, Request};
use std::path::{Path, PathBuf};

fn at(dir: &str, name: &str) -> PathBuf {
    Path::new("tests/fixtures").join(dir).join(name)
}

/// The final output of a numeric run of fixture `dir` from x0 (`tokens`
/// false) or from its token ids, with the config it resolved to.
fn run(dir: &str, tokens: bool) -> (shapetrace::ModelConfig, ArrayD<f32>) {
    let mut src = Sources {
        weights: Some(at(dir, "model.safetensors")),
        ..Sources::default()
    };
    if tokens {
        src.tokens = Some(at(dir, "tokens.npy").to_str().unwrap().into());
    } else {
        src.input = Some(at(dir, "input.npy"));
    }
    common::run_sources(dir, &src)
}

fn want(dir: &str, name: &str) -> ArrayD<f32> {
    shapetrace::npy::read(&at(dir, name)).unwrap()
}

fn matches_transformers(dir: &str) -> shapetrace::ModelConfig {
    let (cfg, hidden) = run(dir, false);
    let delta = largest_delta(&hidden, &want(dir, "hidden.npy"));
    assert!(delta < 1e-4, "{dir} from x0: |Δ| {delta}");
    let (_, logits) = run(dir, true);
    let delta = largest_delta(&logits, &want(dir, "logits.npy"));
    assert!(delta < 1e-4, "{dir} from token ids: |Δ| {delta}");
    cfg
}

#[test]
fn qwen2_matches_transformers_with_its_qkv_biases() {
    let cfg = matches_transformers("hf-qwen2-tiny");
    assert!(cfg.attention.qkv_bias && !cfg.bias);
}

#[test]
fn gemma2_matches_transformers_with_every_setting_of_its_block() {
    let cfg = matches_transformers("hf-gemma2-tiny");
    assert_eq!((cfg.window_at(1), cfg.window_at(2)), (Some(2), None));
    assert_eq!((cfg.attention.query_scale, cfg.head_dim()), (Some(32), 16));
    assert_eq!(
        (cfg.attention.softcap, cfg.vocab.logit_softcap),
        (Some(2.0), Some(3.0))
    );
}

#[test]
fn gpt_neox_matches_transformers_with_its_fused_qkv_and_partial_rotary() {
    let cfg = matches_transformers("hf-neox-tiny");
    assert_eq!(cfg.rotary_dims(), 8);
    assert!(cfg.parallel && !cfg.norms.shared);
}

#[test]
fn phi3_matches_transformers_with_its_fused_projections() {
    let cfg = matches_transformers("hf-phi3-tiny");
    assert!(cfg.mlp.fused_gate_up);
}

#[test]
fn mixtral_matches_transformers_expert_by_expert() {
    let cfg = matches_transformers("hf-mixtral-tiny");
    assert_eq!(
        cfg.mixture,
        Some(shapetrace::config::Mixture {
            experts: 4,
            top_k: 2
        })
    );
}

/// Each family's trace names its own steps: the fused matmul and its
/// split, the soft caps, the scaled embeddings.
#[test]
fn the_family_steps_are_in_the_trace() {
    for (dir, steps) in [
        (
            "hf-neox-tiny",
            &[
                "block1.attn.qkv_proj",
                "block1.attn.q_proj",
                "block1.update",
            ][..],
        ),
        (
            "hf-phi3-tiny",
            &[
                "block1.attn.qkv_proj",
                "block1.mlp.gate_up",
                "block1.mlp.gate",
            ][..],
        ),
        (
            "hf-gemma2-tiny",
            &[
                "tok_emb",
                "input",
                "block1.attn.scores.capped",
                "block1.post_ln_1",
                "block1.post_ln_2",
                "logits.capped",
            ][..],
        ),
    ] {
        let src = Sources {
            weights: Some(at(dir, "model.safetensors")),
            tokens: Some(at(dir, "tokens.npy").to_str().unwrap().into()),
            ..Sources::default()
        };
        let (cfg, req) = resolve(&Overlay::default(), &src, Request::default()).unwrap();
        let traced = shapetrace::trace_request(&cfg, &req).unwrap();
        for step in steps {
            assert!(traced.trace.get(step).is_some(), "{dir}: no {step}");
        }
    }
}

/// A GPT-NeoX checkpoint without its config.json is refused by name: its
/// rotary share and wiring are in no tensor.
#[test]
fn a_gpt_neox_checkpoint_alone_needs_its_config() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("model.safetensors");
    std::fs::copy(at("hf-neox-tiny", "model.safetensors"), &file).unwrap();
    let (code, _, err) =
        common::cli(&["trace", "--weights", file.to_str().unwrap(), "--heads", "4"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("GPT-NeoX checkpoint with no config.json"),
        "{err}"
    );
}
