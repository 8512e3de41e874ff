//! A Hugging Face Mistral checkpoint with a sliding window of 2 (fixture
//! written by scripts/make_llama_fixture.py with transformers, F16), traced
//! from x0 (`inputs_embeds`) to transformers' last hidden state and from
//! token ids to its logits, with the config.json beside it.
//!
//! At T 4 the window decides positions 2 and 3 (each reads itself and the
//! one before); positions 0 and 1 read every earlier position either way.

mod common;
use common::largest_delta;
use ndarray::{ArrayD, s};
use shapetrace::load::{Sources, resolve};
use shapetrace::{Overlay, Request};
use std::path::{Path, PathBuf};

const MISTRAL: &str = "tests/fixtures/hf-mistral-tiny";

fn at(name: &str) -> PathBuf {
    Path::new(MISTRAL).join(name)
}

/// The final output of a numeric run of the fixture from x0 (`tokens`
/// false) or from its token ids.
fn run(tokens: bool) -> ArrayD<f32> {
    let mut src = Sources {
        weights: Some(at("model.safetensors")),
        ..Sources::default()
    };
    if tokens {
        src.tokens = Some(at("tokens.npy").to_str().unwrap().into());
    } else {
        src.input = Some(at("input.npy"));
    }
    let req = Request {
        keep_output: true,
        ..Request::default()
    };
    let (cfg, req) = resolve(&Overlay::default(), &src, req).unwrap();
    assert_eq!(cfg.preset, "mistral (config.json)");
    assert_eq!(
        (cfg.attention.heads, cfg.attention.kv_heads, cfg.layers),
        (4, 2, 2)
    );
    let traced = shapetrace::trace_request(&cfg, &req).unwrap();
    assert!(traced.trace.failure.is_none(), "{:?}", traced.trace.failure);
    traced.output.unwrap()
}

fn want(name: &str) -> ArrayD<f32> {
    shapetrace::npy::read(&at(name)).unwrap()
}

#[test]
fn the_positions_the_window_leaves_alone_match_transformers() {
    // The weights and everything but the window: positions 0 and 1.
    let (got, want) = (run(false), want("hidden.npy"));
    let early = |a: &ArrayD<f32>| a.slice(s![.., ..2, ..]).to_owned().into_dyn();
    let delta = largest_delta(&early(&got), &early(&want));
    assert!(delta < 1e-4, "|Δ| {delta}");
}

#[test]
fn mistral_from_x0_matches_transformers_with_its_sliding_window() {
    let delta = largest_delta(&run(false), &want("hidden.npy"));
    assert!(
        delta < 1e-4,
        "|Δ| {delta} (a full causal mask is off by 0.76)"
    );
}

#[test]
fn mistral_from_token_ids_matches_transformers_logits() {
    let delta = largest_delta(&run(true), &want("logits.npy"));
    assert!(
        delta < 1e-4,
        "|Δ| {delta} (a full causal mask is off by 5.1)"
    );
}
