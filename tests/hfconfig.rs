//! Hugging Face config.json files: the published parameter counts, and a
//! one-line error for each kind of bad file.

mod common;
use shapetrace::config::{Act, NormKind, PosEmb};
use shapetrace::{Budget, ModelConfig, Overlay};
use std::path::Path;

fn load(name: &str) -> ModelConfig {
    let path = Path::new("tests/fixtures/hf").join(name);
    Overlay::from_file(&path).unwrap().resolve().unwrap()
}

fn error(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    std::fs::write(&path, text).unwrap();
    let e = Overlay::from_file(&path)
        .map_err(shapetrace::Error::from)
        .and_then(|o| o.resolve().map_err(shapetrace::Error::from))
        .unwrap_err()
        .to_string();
    assert_eq!(e.lines().count(), 1, "{e}");
    e
}

#[test]
fn parameter_counts_equal_the_published_ones() {
    for (file, total) in [
        ("gpt2.json", 124_439_808),
        ("llama-2-7b.json", 6_738_415_616),
        ("mistral-7b-v0.1.json", 7_241_732_096),
        ("tinyllama-1.1b.json", 1_100_048_384),
    ] {
        let b = Budget::of(&load(file)).unwrap();
        assert_eq!(b.total, total, "{file}");
        assert_eq!(b.closed_total, total, "{file}: closed form");
    }
}

#[test]
fn llama_family_is_rmsnorm_swiglu_untied_without_biases_or_wpe() {
    let c = load("mistral-7b-v0.1.json");
    assert_eq!(
        (c.d_model, c.heads, c.kv_heads, c.d_ff, c.layers),
        (4096, 32, 8, 14336, 32)
    );
    assert_eq!(
        (c.act, c.norm, c.pos_emb),
        (Act::Swiglu, NormKind::RmsNorm, PosEmb::Rope)
    );
    assert!(!c.bias && !c.tied && c.final_norm);
    assert_eq!(
        (c.vocab, c.context, c.batch, c.seq),
        (Some(32000), 32768, 1, 32768)
    );
    assert_eq!(c.preset, "mistral (mistral-7b-v0.1.json)");
    assert_eq!(c.rope_theta, 10_000.0);
    let dir = tempfile::tempdir().unwrap();
    let l3 = dir.path().join("config.json");
    let text = std::fs::read_to_string("tests/fixtures/hf/llama-2-7b.json").unwrap();
    std::fs::write(
        &l3,
        text.replace("\"rope_scaling\": null", "\"rope_theta\": 500000.0"),
    )
    .unwrap();
    let c3 = Overlay::from_file(&l3).unwrap().resolve().unwrap();
    assert_eq!(c3.rope_theta, 500_000.0);
    let g = load("gpt2.json");
    assert_eq!(
        (g.act, g.norm, g.pos_emb),
        (Act::GeluTanh, NormKind::LayerNorm, PosEmb::Learned)
    );
    assert!(g.bias && g.tied && (g.eps - 1e-5).abs() < 1e-12);
}

#[test]
fn rope_adds_no_parameters_and_learned_positions_add_ctx_times_d() {
    let mut c = load("gpt2.json");
    let learned = Budget::of(&c).unwrap().total;
    c.pos_emb = PosEmb::Rope;
    assert_eq!(learned - Budget::of(&c).unwrap().total, 1024 * 768);
}

#[test]
fn a_70b_sized_config_traces_shape_only_with_a_note() {
    let mut c = load("llama-2-7b.json");
    (c.d_model, c.heads, c.kv_heads, c.d_ff, c.layers) = (8192, 64, 8, 28672, 80);
    let t = shapetrace::trace_request(&c, &shapetrace::Request::default()).unwrap();
    assert!(t.plan.switched && t.plan.note().unwrap().contains("shapes only"));
    assert_eq!(
        t.trace.get("block80.attn.k").unwrap().shape,
        [1, 8, 4096, 128]
    );
    assert_eq!(
        t.trace.get("block80.attn.k_rep").unwrap().shape,
        [1, 64, 4096, 128]
    );
}

#[test]
fn bad_files_name_the_problem_on_one_line() {
    let cases = [
        (
            r#"{"model_type": "bert", "hidden_size": 768}"#,
            &["'bert'", "gpt2, llama, mistral"][..],
        ),
        (
            r#"{"hidden_size": 768}"#,
            &["missing field 'model_type'; allowed: gpt2, llama, mistral"],
        ),
        (
            r#"{"model_type": 2, "hidden_size": 768}"#,
            &["model_type '2' is not supported; allowed: gpt2, llama, mistral"],
        ),
        (
            r#"{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4}"#,
            &["missing field 'intermediate_size'", "llama"],
        ),
        (
            r#"{"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 2, "vocab_size": 10}"#,
            &["missing field 'n_ctx'"],
        ),
        (
            r#"{"model_type": "gpt2", "n_embd": -64, "n_head": 4}"#,
            &["'n_embd' is -64", "whole number"],
        ),
        (
            r#"{"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 1, "vocab_size": 10, "n_positions": 8, "activation_function": "mish"}"#,
            &["'activation_function'", "gelu_new"],
        ),
        (
            r#"{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8, "hidden_act": "gelu"}"#,
            &["'hidden_act' is \"gelu\"", "silu"],
        ),
        (
            r#"{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 5, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8}"#,
            &["heads 5", "allowed heads"],
        ),
        (r#"{"model_type": "gpt2", "#, &["not valid JSON"]),
        // Fields that change what is computed are refused, never ignored.
        (
            r#"{"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 1, "vocab_size": 10, "n_positions": 8, "scale_attn_weights": false}"#,
            &["'scale_attn_weights' is false", "allowed: true"],
        ),
        (
            r#"{"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 1, "vocab_size": 10, "n_positions": 8, "scale_attn_by_inverse_layer_idx": true}"#,
            &[
                "'scale_attn_by_inverse_layer_idx' is true",
                "allowed: false",
            ],
        ),
        (
            r#"{"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 1, "vocab_size": 10, "n_positions": 8, "activation_function": "silu"}"#,
            &[
                "'activation_function' is \"silu\"",
                "non-gated silu is not supported",
            ],
        ),
        (
            r#"{"model_type": "mistral", "hidden_size": 5120, "num_attention_heads": 32, "head_dim": 128, "intermediate_size": 14336, "num_hidden_layers": 40, "vocab_size": 131072, "max_position_embeddings": 8}"#,
            &["'head_dim' is 128", "5120 / 32 = 160"],
        ),
        (
            r#"{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8, "rope_theta": -1}"#,
            &["'rope_theta' is -1", "a number > 0"],
        ),
    ];
    for (text, needles) in cases {
        let e = error(text);
        for n in needles {
            assert!(e.contains(n), "'{n}' not in: {e}");
        }
    }
}

#[test]
fn toml_is_still_toml_and_oversized_files_are_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("model.toml");
    std::fs::write(&toml, "\n  d_model = 32\nheads = 2\n").unwrap();
    assert_eq!(Overlay::from_file(&toml).unwrap().d_model, Some(32));
    let big = dir.path().join("big.json");
    std::fs::write(&big, vec![b' '; 2 << 20]).unwrap();
    let e = Overlay::from_file(&big).unwrap_err().to_string();
    assert!(e.contains("at most 1048576 bytes"), "{e}");
}

/// A config error is named with the model file only when the file is at
/// fault: invalid by itself, not made invalid by a flag.
#[test]
fn config_errors_name_the_model_file_only_when_it_is_at_fault() {
    use shapetrace::load::{Sources, resolve};
    let dir = tempfile::tempdir().unwrap();
    let (good, bad) = (dir.path().join("good.toml"), dir.path().join("bad.toml"));
    std::fs::write(&good, "d_model = 64\nheads = 4\n").unwrap();
    std::fs::write(&bad, "d_model = 64\nheads = 5\n").unwrap();
    let error = |file: &std::path::Path, heads: Option<usize>| {
        let src = Sources {
            config: Some(file.to_path_buf()),
            ..Sources::default()
        };
        let flags = Overlay {
            heads,
            ..Overlay::default()
        };
        resolve(&flags, &src, shapetrace::Request::default())
            .err()
            .map(|e| e.to_string())
    };
    let by_file = error(&bad, None).unwrap();
    assert!(
        by_file.contains("heads 5") && by_file.contains("(model from "),
        "{by_file}"
    );
    let by_flag = error(&good, Some(7)).unwrap();
    assert!(
        by_flag.contains("heads 7") && !by_flag.contains("model from"),
        "{by_flag}"
    );
    assert_eq!(error(&bad, Some(4)), None, "the flag mends the file");
}

#[test]
fn theta_is_read_where_transformers_5_writes_it_and_a_matching_head_dim_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let llama3 = write(
        "llama3.json",
        r#"{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "head_dim": 16, "intermediate_size": 96, "num_hidden_layers": 1, "vocab_size": 50, "max_position_embeddings": 8, "rope_parameters": {"rope_type": "default", "rope_theta": 500000.0}}"#,
    );
    let c = shapetrace::Overlay::from_file(&llama3)
        .unwrap()
        .resolve()
        .unwrap();
    assert_eq!((c.rope_theta, c.head_dim()), (500_000.0, 16));
    // The header of its trace says so.
    let (code, out, err) = common::cli(&[
        "trace",
        "--config",
        llama3.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.lines()
            .next()
            .unwrap()
            .contains("\"rope_theta\":500000.0"),
        "{out}"
    );
    // The top-level field, as older transformers write it, still counts.
    let old = write(
        "old.json",
        r#"{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96, "num_hidden_layers": 1, "vocab_size": 50, "max_position_embeddings": 8, "rope_theta": 250000.0}"#,
    );
    let c = shapetrace::Overlay::from_file(&old)
        .unwrap()
        .resolve()
        .unwrap();
    assert_eq!(c.rope_theta, 250_000.0);
}
