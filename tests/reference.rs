//! `reference` against the plain f64 forward: every preset small enough
//! to re-run, every family fixture's real weights and every feature a
//! config can declare agree with it within their dtype's tolerance, and
//! `check` says so with the largest |Δ|.
//!
//! The fast path's ability to fail it is shown by the library's unit
//! test of a broken tile bound (`src/check/reference/plain/tests.rs`).

mod common;
use common::cfg;
use shapetrace::check::influence::{PROBE_MAX_BYTES, Subject, rerunnable};
use shapetrace::check::reference::plain::{Agreement, against_plain, tolerance};
use shapetrace::config::DType;
use shapetrace::load::{Sources, resolve};
use shapetrace::{CheckName, ModelConfig, Overlay, Request, Status};
use std::path::Path;

/// The agreement of `cfg`'s seeded model, which must be reached.
fn agreement(c: &ModelConfig) -> Agreement {
    against_plain(Subject::seeded(c)).unwrap_or_else(|e| panic!("{c:?}: {e:?}"))
}

/// Every feature of a block, each on the lesson model (B 2, T 4, d 64).
const FEATURES: &[&str] = &[
    "",
    "act = 'relu'",
    "act = 'gelu-tanh'",
    "act = 'silu'",
    "act = 'swiglu'\nnorm = 'rmsnorm'\nbias = false",
    "act = 'geglu'\nnorm = 'rmsnorm-plus-one'",
    "act = 'swiglu'\nfused_gate_up = true",
    "placement = 'post'\nfinal_norm = true",
    "placement = 'sandwich'\nnorm = 'rmsnorm-plus-one'",
    "parallel = true",
    "parallel = true\nshared_norm = true\nnorm_bias = true\nbias = false",
    "encoder = true\nplacement = 'post'",
    "kv_heads = 2",
    "kv_heads = 1",
    "kv_heads = 2\nfused_qkv = 'concat'",
    "kv_heads = 2\nfused_qkv = 'grouped'",
    "fused_qkv = 'grouped'",
    "head_dim = 32",
    "pos_emb = 'rope'",
    "pos_emb = 'rope'\nrotary_dims = 8\nrope_theta = 500.0",
    "pos_emb = 'rope'\nrope_scaling = { kind = 'linear', factor = 4.0 }",
    "pos_emb = 'rope'\nrope_theta = 50.0\nrope_scaling = { kind = 'llama3', factor = 8.0, low_freq_factor = 1.0, high_freq_factor = 4.0, original_max_position_embeddings = 16 }",
    "pos_emb = 'alibi'",
    "pos_emb = 'alibi'\nheads = 8\nkv_heads = 8",
    "heads = 8\nkv_heads = 8\npos_emb = 'alibi'\nhead_dim = 4",
    "seq = 6\nwindow = 2",
    "seq = 6\nwindow = 2\nfull_every = 2",
    "query_scale = 7\nattn_softcap = 0.5",
    "qkv_bias = true\nbias = false",
    "mlp_bias = false",
    "experts = 4\ntop_k = 2",
    "experts = 3\ntop_k = 1\nact = 'swiglu'",
    "final_norm = true\nlayers = 3",
];

/// Each feature agrees with the plain forward in f64, f32, bf16 and f16,
/// each within its dtype's tolerance. The largest |Δ| of each dtype is
/// printed (`cargo test --test reference -- --nocapture`): the README's
/// table of them comes from here.
#[test]
fn every_feature_agrees_with_the_plain_forward_in_every_dtype() {
    let mut largest = std::collections::BTreeMap::<&str, f64>::new();
    for feature in FEATURES {
        for dtype in ["f64", "f32", "bf16", "f16"] {
            // Validation refuses a mixture of experts in 16 bits.
            if feature.contains("experts") && dtype.ends_with("16") {
                continue;
            }
            let c = cfg(&format!("preset = 'lesson'\ndtype = '{dtype}'\n{feature}"));
            let a = agreement(&c);
            assert_eq!(a.apart, None, "{dtype} {feature}: {a:?}");
            // Most of the tolerance is left over: the stream is a few units.
            assert!(a.largest < tolerance(c.dtype), "{dtype} {feature}: {a:?}");
            let m = largest.entry(dtype).or_default();
            *m = m.max(a.largest);
        }
    }
    for (dtype, m) in &largest {
        eprintln!("largest |Δ| against the plain f64 forward, {dtype}: {m:.1e}");
    }
}

/// Every preset small enough to re-run passes `reference` against the
/// plain f64 forward and names its largest |Δ|, under its dtype's
/// tolerance; the others are skipped, never passed.
#[test]
fn every_preset_passes_against_the_plain_forward() {
    for (name, _) in shapetrace::config::preset::PRESETS {
        let c = shapetrace::config::preset::by_name(name).unwrap();
        if rerunnable(&c).is_err() {
            continue;
        }
        let a = agreement(&c);
        assert_eq!(a.apart, None, "{name}: {a:?}");
        assert!(a.largest < tolerance(c.dtype), "{name}: {a:?}");
        let req = Request {
            max_memory: Some(PROBE_MAX_BYTES),
            ..Request::default()
        };
        let run = shapetrace::run_request(&c, &req).unwrap();
        let r = run
            .checks
            .iter()
            .find(|r| r.name == CheckName::Reference)
            .unwrap();
        assert_eq!(r.status, Status::Pass, "{name}: {r:?}");
        assert!(
            r.detail
                .contains("agrees with a plain f64 forward: max |Δ| "),
            "{name}: {r:?}"
        );
    }
}

/// The family fixtures' real weights (transformers' tiny checkpoints:
/// Llama in f32 and bf16, Mistral, Mixtral, GPT-NeoX, Phi-3, Qwen2, Gemma
/// 2) on their own input pass `reference` against the plain forward.
#[test]
fn every_family_checkpoint_passes_against_the_plain_forward() {
    let dirs = [
        "hf-llama-tiny",
        "hf-llama-tiny-bf16",
        "hf-mistral-tiny",
        "hf-mixtral-tiny",
        "hf-neox-tiny",
        "hf-phi3-tiny",
        "hf-qwen2-tiny",
        "hf-gemma2-tiny",
    ];
    for dir in dirs {
        let at = |name: &str| Path::new("tests/fixtures").join(dir).join(name);
        // The bf16 checkpoint has no input of its own: the seeded one.
        let input = at("input.npy");
        let src = Sources {
            weights: Some(at("model.safetensors")),
            input: input.exists().then_some(input),
            ..Sources::default()
        };
        let (c, req) = resolve(&Overlay::default(), &src, Request::default())
            .unwrap_or_else(|e| panic!("{dir}: {e}"));
        let subject = Subject::of(&c, &req);
        let a = against_plain(subject).unwrap_or_else(|e| panic!("{dir}: {e:?}"));
        assert_eq!(a.apart, None, "{dir}: {a:?}");
        assert!(a.largest > 0.0 || c.dtype == DType::F64, "{dir}: {a:?}");
        let traced = shapetrace::trace_request(&c, &req).unwrap();
        let r = shapetrace::check::reference::reference(&traced.trace, subject);
        assert_eq!(r.status, Status::Pass, "{dir}: {r:?}");
    }
}
