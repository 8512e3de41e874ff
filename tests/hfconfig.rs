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
        ("llama-3-8b.json", 8_030_261_248),
        ("llama-3.2-1b.json", 1_235_814_400),
        ("mistral-nemo-12b.json", 12_247_782_400),
        ("qwen2-0.5b.json", 494_032_768),
        ("mixtral-8x7b-v0.1.json", 46_702_792_704),
        ("phi-3-mini-4k.json", 3_821_079_552),
        ("pythia-160m.json", 162_322_944),
        ("falcon-7b.json", 6_921_720_704),
        ("opt-125m.json", 125_239_296),
        ("gemma-2b.json", 2_506_172_416),
        ("gemma-2-2b.json", 2_614_341_888),
        ("bert-base-uncased.json", 109_482_240),
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
        (
            c.d_model,
            c.attention.heads,
            c.attention.kv_heads,
            c.mlp.d_ff,
            c.layers
        ),
        (4096, 32, 8, 14336, 32)
    );
    assert_eq!(
        (c.mlp.act, c.norms.kind, c.positions.kind),
        (Act::Swiglu, NormKind::RmsNorm, PosEmb::Rope)
    );
    assert!(!c.bias && !c.vocab.tied && c.norms.final_norm);
    assert_eq!(
        (c.vocab.size, c.positions.context, c.batch, c.seq),
        (Some(32000), Some(32768), 1, 32768)
    );
    assert_eq!(c.preset, "mistral (mistral-7b-v0.1.json)");
    assert_eq!(c.positions.rope_theta, 10_000.0);
    let dir = tempfile::tempdir().unwrap();
    let l3 = dir.path().join("config.json");
    let text = std::fs::read_to_string("tests/fixtures/hf/llama-2-7b.json").unwrap();
    std::fs::write(
        &l3,
        text.replace("\"rope_scaling\": null", "\"rope_theta\": 500000.0"),
    )
    .unwrap();
    let c3 = Overlay::from_file(&l3).unwrap().resolve().unwrap();
    assert_eq!(c3.positions.rope_theta, 500_000.0);
    let g = load("gpt2.json");
    assert_eq!(
        (g.mlp.act, g.norms.kind, g.positions.kind),
        (Act::GeluTanh, NormKind::LayerNorm, PosEmb::Learned)
    );
    assert!(g.bias && g.vocab.tied && (g.norms.eps - 1e-5).abs() < 1e-12);
}

#[test]
fn rope_adds_no_parameters_and_learned_positions_add_ctx_times_d() {
    let mut c = load("gpt2.json");
    let learned = Budget::of(&c).unwrap().total;
    c.positions.kind = PosEmb::Rope;
    assert_eq!(learned - Budget::of(&c).unwrap().total, 1024 * 768);
}

#[test]
fn a_70b_sized_config_traces_shape_only_with_a_note() {
    let mut c = load("llama-2-7b.json");
    (
        c.d_model,
        c.attention.heads,
        c.attention.kv_heads,
        c.mlp.d_ff,
        c.layers,
    ) = (8192, 64, 8, 28672, 80);
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
            r#"{"model_type": "t5", "d_model": 512}"#,
            &[
                "'t5'",
                "gpt2, llama, mistral, qwen2, mixtral, phi3, gpt_neox, falcon, opt, gemma, gemma2, bert",
            ][..],
        ),
        (
            r#"{"hidden_size": 768}"#,
            &["missing field 'model_type'; allowed: gpt2, llama, mistral, qwen2, mixtral, phi3"],
        ),
        (
            r#"{"model_type": 2, "hidden_size": 768}"#,
            &[
                "model_type '2' is not supported; allowed: gpt2, llama, mistral, qwen2, mixtral, phi3",
            ],
        ),
        (
            r#"{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4}"#,
            &["missing field 'intermediate_size'", "llama"],
        ),
        (
            r#"{"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 2, "vocab_size": 10}"#,
            &["missing field 'n_positions'"],
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
            // Llama's code turns the whole head: a share is not its.
            r#"{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8, "partial_rotary_factor": 0.5}"#,
            &[
                "'partial_rotary_factor' is 0.5",
                "model_type llama turns every feature",
            ],
        ),
        (
            // Phi-3 applies one; a share of head_dim 16 that leaves an odd
            // number of features to turn is refused (0.5 would be 8).
            r#"{"model_type": "phi3", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8, "partial_rotary_factor": 0.3125}"#,
            &[
                "'partial_rotary_factor' is 0.3125",
                "even number of features (5 is not)",
            ],
        ),
        (
            r#"{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8, "rope_parameters": {"rope_type": 7, "factor": 2.0}}"#,
            &["'rope_parameters'", "rope_type a name"],
        ),
        (
            r#"{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8, "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 10000.0}}}"#,
            &["'rope_parameters'", "per-layer-kind"],
        ),
        (
            r#"{"model_type": "llama", "hidden_size": 28, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8}"#,
            &["head_dim 7 is odd", "even head_dim"],
        ),
        (
            r#"{"model_type": "qwen2", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8, "use_sliding_window": true, "sliding_window": 4}"#,
            &["'use_sliding_window' is true", "some layers only"],
        ),
        (
            r#"{"model_type": "qwen2", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 2, "vocab_size": 9, "max_position_embeddings": 8, "layer_types": ["full_attention", "sliding_attention"]}"#,
            &["'layer_types'", "full_attention for every layer"],
        ),
        (
            r#"{"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 1, "vocab_size": 10, "n_positions": 8, "add_cross_attention": true}"#,
            &["'add_cross_attention' is true", "allowed: false"],
        ),
        (
            r#"{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8, "rope_scaling": {"rope_type": "yarn", "factor": 4.0}}"#,
            &["'rope_scaling'", "yarn", "default, linear or llama3"],
        ),
        (
            r#"{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8, "rope_parameters": {"rope_type": "dynamic", "factor": 2.0, "rope_theta": 10000.0}}"#,
            &["'rope_parameters'", "dynamic", "not supported"],
        ),
        (
            r#"{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8, "rope_scaling": {"type": "llama3", "factor": 8.0, "low_freq_factor": 4.0, "high_freq_factor": 1.0, "original_max_position_embeddings": 8}}"#,
            &["'rope_scaling'", "high_freq_factor 1 is out of range"],
        ),
        (
            r#"{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8, "rope_scaling": {"type": "linear"}}"#,
            &["'rope_scaling'", "rope_type linear with factor a number"],
        ),
        (
            r#"{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8, "quantization_config": {"bits": 4}}"#,
            &["'quantization_config'", "quantized weights"],
        ),
        (
            r#"{"model_type": "mistral", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8, "sliding_window": 0}"#,
            &["'sliding_window' is 0", "a whole number ≥ 1"],
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
    assert_eq!((c.positions.rope_theta, c.head_dim()), (500_000.0, 16));
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
    assert_eq!(c.positions.rope_theta, 250_000.0);
}

/// `path` of `dir`, written with `text`.
fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// Mistral-NeMo's head_dim 128 with 32 heads in a stream of 5120: the
/// merged heads are (B,T,4096), the merge leaves (B,T,d) and the output
/// projection brings the shape back. Ignoring head_dim counted 524,288,000
/// more (q and out at 5120 × 5120).
#[test]
fn a_head_dim_apart_from_d_over_heads_is_applied_and_the_merge_leaves_the_stream() {
    let mut c = load("mistral-nemo-12b.json");
    assert_eq!((c.head_dim(), c.attn_width(), c.d_model), (128, 4096, 5120));
    let published = Budget::of(&c).unwrap().total;
    c.attention.head_dim = None;
    assert_eq!(
        Budget::of(&c).unwrap().total - published,
        524_288_000,
        "without head_dim"
    );
    let (code, out, err) = common::cli(&[
        "trace",
        "--config",
        "tests/fixtures/hf/mistral-nemo-12b.json",
        "--seq",
        "8",
        "--layers",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let event = |path: &str| -> serde_json::Value {
        out.lines()
            .skip(1)
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|e| e["path"] == path)
            .unwrap_or_else(|| panic!("no {path}"))
    };
    let merge = event("block1.attn.merge");
    assert_eq!(merge["shape"], serde_json::json!([1, 8, 4096]));
    assert_eq!(merge["departs"], true);
    assert_eq!(merge["axes"], serde_json::json!(["B", "T", "h·hd"]));
    assert!(
        merge["why_text"]
            .as_str()
            .unwrap()
            .contains("not d_model 5120"),
        "{merge}"
    );
    let out_proj = event("block1.attn.out");
    assert_eq!(out_proj["shape"], serde_json::json!([1, 8, 5120]));
    assert_eq!(out_proj["departs"], false);
    assert!(
        out_proj["why_text"]
            .as_str()
            .unwrap()
            .contains("where the shape returns"),
        "{out_proj}"
    );
    assert_eq!(
        event("block1.attn.q")["shape"],
        serde_json::json!([1, 32, 8, 128])
    );
}

/// GPT-2's activations as transformers' ACT2FN names them: the three tanh
/// spellings are one function, and `silu` is x·σ(x) on the one hidden
/// layer (two matrices: 107,520 parameters, where a gated SwiGLU would
/// have 140,800).
#[test]
fn gpt2_activations_are_applied_as_transformers_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = |act: &str| {
        format!(
            r#"{{"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 2, "vocab_size": 10, "n_positions": 8, "activation_function": "{act}"}}"#
        )
    };
    for (act, want) in [
        ("gelu_new", Act::GeluTanh),
        ("gelu_fast", Act::GeluTanh),
        ("gelu_pytorch_tanh", Act::GeluTanh),
        ("gelu", Act::Gelu),
        ("relu", Act::Relu),
        ("silu", Act::Silu),
    ] {
        let p = write(&dir, &format!("{act}.json"), &cfg(act));
        let c = Overlay::from_file(Path::new(&p))
            .unwrap()
            .resolve()
            .unwrap();
        assert_eq!(c.mlp.act, want, "{act}");
        let blocks: u64 = Budget::of(&c).unwrap().total - 10 * 64 - 8 * 64;
        // Per block: attention 4·d² + 4·d, MLP 2·d·4d + 4d + d, 2 norms 4·d.
        assert_eq!(blocks, 2 * 49_984 + 128, "{act}: two matrices a block");
    }
    let p = write(&dir, "silu.json", &cfg("silu"));
    let (code, out, err) = common::cli(&["trace", "--config", &p, "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains(r#""path":"block1.mlp.act","op":"silu""#),
        "{out}"
    );
    assert!(!out.contains("mlp.gate"), "a non-gated MLP has no gate");
}

/// The written policy: fields known to change nothing pass silently, an
/// unknown field passes with one note naming it, on stderr and exit 0.
#[test]
fn unknown_fields_are_named_in_one_note_and_known_ones_pass_silently() {
    let dir = tempfile::tempdir().unwrap();
    let base = r#""model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8"#;
    let quiet = write(
        &dir,
        "quiet.json",
        &format!(
            r#"{{{base}, "torch_dtype": "bfloat16", "pretraining_tp": 1, "use_cache": true, "bos_token_id": 1, "architectures": ["LlamaForCausalLM"], "attention_dropout": 0.0}}"#
        ),
    );
    let (code, _, err) = common::cli(&["params", "--config", &quiet]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("note"), "{err}");
    let noisy = write(
        &dir,
        "noisy.json",
        &format!(
            r#"{{{base}, "future_knob": 3, "sliding_window": 2, "rope_parameters": {{"rope_type": "default", "rope_theta": 10000.0, "mystery": 1}}}}"#
        ),
    );
    let (code, _, err) = common::cli(&["params", "--config", &noisy]);
    assert_eq!(code, Some(0), "{err}");
    let notes: Vec<&str> = err.lines().filter(|l| l.contains("note:")).collect();
    assert_eq!(notes.len(), 1, "{err}");
    for name in [
        "future_knob",
        "sliding_window",
        "rope_parameters.mystery",
        "llama",
    ] {
        assert!(notes[0].contains(name), "{name} not in {err}");
    }
}

/// Llama 3's and linear rope scaling give the frequencies transformers
/// computes (tests/fixtures/rope-scaling.json, written by
/// scripts/make_rope_fixture.py), to f32 rounding; unscaled would not.
#[test]
fn rope_scaling_gives_the_frequencies_transformers_computes() {
    let text = std::fs::read_to_string("tests/fixtures/rope-scaling.json").unwrap();
    let fixture: serde_json::Value = serde_json::from_str(&text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for case in fixture["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let hd = case["head_dim"].as_u64().unwrap() as usize;
        let cfg = serde_json::json!({
            "model_type": "llama", "hidden_size": 2 * hd, "num_attention_heads": 2,
            "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9,
            "max_position_embeddings": 16, "rope_parameters": case["config"],
        });
        let p = write(&dir, "c.json", &cfg.to_string());
        let c = Overlay::from_file(Path::new(&p))
            .unwrap()
            .resolve()
            .unwrap();
        let want: Vec<f64> = case["inv_freq"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let mut moved = false;
        for (i, w) in want.iter().enumerate() {
            let got = shapetrace::config::RopeScaling::frequency(
                c.positions.rope_scaling,
                c.positions.rope_theta,
                i,
                hd,
            );
            assert!(
                (got - w).abs() <= 1e-6 * w.abs(),
                "{name} pair {i}: {got} against {w}"
            );
            let plain =
                shapetrace::config::RopeScaling::frequency(None, c.positions.rope_theta, i, hd);
            moved |= (plain - w).abs() > 1e-6 * w.abs();
        }
        assert_eq!(
            moved,
            name != "default",
            "{name}: scaling changes some frequency"
        );
    }
}

/// Mistral's sliding window: at T 4 with a window of 2, query 3 reads keys
/// 2 and 3 only (╳ elsewhere); the causality probe still passes, and the
/// scores' FLOPs are counted over the band.
#[test]
fn a_sliding_window_masks_outside_the_band_and_still_passes_causality() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"{"model_type": "mistral", "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 96, "num_hidden_layers": 2, "vocab_size": 50, "max_position_embeddings": 8, "sliding_window": 2}"#;
    let p = write(&dir, "mistral.json", text);
    let c = Overlay::from_file(Path::new(&p))
        .unwrap()
        .resolve()
        .unwrap();
    assert_eq!(c.attention.window, Some(2));
    let (code, out, err) = common::cli(&[
        "trace", "--config", &p, "--seq", "4", "--format", "json", "--values",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let weights: serde_json::Value = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|e| e["path"] == "block1.attn.weights")
        .unwrap();
    let v: Vec<f64> = weights["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    // Head 0, batch 0: a (4, 4) grid; row t keeps keys t−1 and t.
    for t in 0..4 {
        for j in 0..4 {
            let kept = j <= t && j + 2 > t;
            assert_eq!(v[t * 4 + j] != 0.0, kept, "row {t} key {j}: {:?}", &v[..16]);
        }
    }
    let (code, out, err) = common::cli(&["check", "--config", &p, "--seq", "4"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("causality"), "{out}");
    // The band's pairs: 1 + 2 + 2 + 2 = 7 of T·T = 16 (causal: 10).
    let mut banded = c.clone();
    banded.seq = 4;
    let full = Budget::of(&banded).unwrap().flops.per_token_per_block;
    banded.attention.window = None;
    let causal = Budget::of(&banded).unwrap().flops.per_token_per_block;
    assert_eq!(full.attention_full, causal.attention_full);
    assert_eq!(
        full.attention_causal * 10,
        causal.attention_causal * 7,
        "band 7 pairs against causal 10"
    );
}

/// `params --format json` gives the count without the embeddings and the
/// untied LM head: Llama-3-8B's blocks and final norm, 6,979,588,096 of
/// its 8,030,261,248 (wte and the head are 128,256 × 4,096 each).
#[test]
fn params_json_counts_without_embeddings_and_the_untied_head() {
    let (code, out, err) = common::cli(&[
        "params",
        "--config",
        "tests/fixtures/hf/llama-3-8b.json",
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let b: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(b["total"], 8_030_261_248_u64);
    let ne = &b["non_embedding"];
    assert_eq!(ne["minus_all"], 8_030_261_248_u64 - 525_336_576);
    assert_eq!(ne["minus_all_and_head"], 6_979_588_096_u64);
    // Tied, the head is wte: nothing more to take away.
    let tied = Budget::of(&load("llama-3.2-1b.json")).unwrap();
    assert_eq!(
        tied.non_embedding.minus_all_and_head,
        tied.non_embedding.minus_all
    );
}

/// Config files as transformers 5 writes them (`save_pretrained` of each
/// family's config, committed under tests/fixtures/hf/transformers5):
/// every field is applied or known, so none is noted, and Qwen2's q, k, v
/// biases are counted (o has none).
#[test]
fn transformers_5_config_files_load_without_a_note() {
    for family in ["gpt2", "llama", "mistral", "qwen2"] {
        let path = format!("tests/fixtures/hf/transformers5/{family}.json");
        let (code, out, err) = common::cli(&["params", "--config", &path]);
        assert_eq!(code, Some(0), "{family}: {err}");
        assert!(err.is_empty(), "{family}: {err}");
        assert!(out.contains(&format!("{family} (")), "{out}");
    }
    let q = load("transformers5/qwen2.json");
    assert!(q.attention.qkv_bias && !q.bias && !q.mlp_bias());
    let with = Budget::of(&q).unwrap();
    let biases = with.total - with.total_no_bias;
    // Per block: q 64 + k 32 + v 32 (2 K/V heads of 16); 2 blocks.
    assert_eq!(biases, 2 * (64 + 32 + 32), "q, k and v only");
}

/// Rotary settings as transformers reads them: `rope_scaling` wins over
/// `rope_parameters`, θ comes from the object it takes (else the top
/// level), a null `rope_type` falls back to `type`, and llama3 without
/// `original_max_position_embeddings` takes the model's context.
#[test]
fn rope_settings_are_read_as_transformers_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let base = r#""model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 64"#;
    let cfg = |extra: &str| {
        let p = write(&dir, "c.json", &format!("{{{base}, {extra}}}"));
        Overlay::from_file(Path::new(&p))
            .unwrap()
            .resolve()
            .unwrap()
    };
    use shapetrace::config::RopeScaling;
    let c =
        cfg(r#""rope_scaling": {"rope_type": "linear", "factor": 2.0, "rope_theta": 500000.0}"#);
    assert_eq!(c.positions.rope_theta, 500_000.0);
    assert_eq!(
        c.positions.rope_scaling,
        Some(RopeScaling::Linear { factor: 2.0 })
    );
    let both = cfg(
        r#""rope_scaling": {"type": "linear", "factor": 4.0}, "rope_parameters": {"rope_type": "default", "rope_theta": 99.0}, "rope_theta": 250000.0"#,
    );
    assert_eq!(
        both.positions.rope_scaling,
        Some(RopeScaling::Linear { factor: 4.0 })
    );
    assert_eq!(
        both.positions.rope_theta, 250_000.0,
        "rope_scaling's object has none: the top level's"
    );
    let null_type = cfg(r#""rope_scaling": {"rope_type": null, "type": "linear", "factor": 3.0}"#);
    assert_eq!(
        null_type.positions.rope_scaling,
        Some(RopeScaling::Linear { factor: 3.0 })
    );
    let fallback = cfg(
        r#""rope_parameters": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "rope_theta": 10000.0}"#,
    );
    assert!(matches!(
        fallback.positions.rope_scaling,
        Some(RopeScaling::Llama3 {
            original_max_position_embeddings: 64,
            ..
        })
    ));
}

/// Biases as each family's code builds them: Mistral's projections have
/// none whatever the file says (a note says it is not applied, never that
/// it is unknown), and `--no-bias`
/// takes away the MLP's biases that a llama config.json asked for.
#[test]
fn bias_fields_follow_the_family_and_the_no_bias_flag_wins() {
    let dir = tempfile::tempdir().unwrap();
    let mistral = write(
        &dir,
        "m.json",
        r#"{"model_type": "mistral", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8, "attention_bias": true}"#,
    );
    let c = Overlay::from_file(Path::new(&mistral))
        .unwrap()
        .resolve()
        .unwrap();
    assert!(!c.bias && !c.mlp_bias());
    let (code, _, err) = common::cli(&["params", "--config", &mistral]);
    assert_eq!(code, Some(0));
    assert!(
        err.contains("attention_bias true is not read: transformers fixes model_type mistral's biases in its code (none)")
            && !err.contains("unknown"),
        "{err}"
    );
    let llama = write(
        &dir,
        "l.json",
        r#"{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8, "mlp_bias": true}"#,
    );
    let (_, with, _) = common::cli(&["params", "--config", &llama, "--format", "json"]);
    let (_, without, _) = common::cli(&[
        "params",
        "--config",
        &llama,
        "--no-bias",
        "--format",
        "json",
    ]);
    let v = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap();
    let (with, without) = (v(&with), v(&without));
    assert_ne!(
        with["total"], with["total_no_bias"],
        "the config's MLP biases"
    );
    assert_eq!(
        without["total"], without["total_no_bias"],
        "--no-bias: none"
    );
}

/// Mixtral reads its experts: 8 SwiGLU experts of 14336, each token sent
/// to 2; the router's training terms change nothing and draw no note; a
/// token uses 12,879,925,248 of the 46,702,792,704 parameters.
#[test]
fn mixtral_reads_its_experts_and_counts_the_active_parameters() {
    let c = load("mixtral-8x7b-v0.1.json");
    let m = c.mixture.unwrap();
    assert_eq!(
        (m.experts, m.top_k, c.mlp.d_ff, c.attention.window),
        (8, 2, 14336, None)
    );
    let b = Budget::of(&c).unwrap();
    assert_eq!(b.active_per_token, 12_879_925_248);
    let (code, out, err) = common::cli(&[
        "check",
        "--config",
        "tests/fixtures/hf/mixtral-8x7b-v0.1.json",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(!err.contains("unknown to shapetrace"), "{err}");
    assert!(
        out.contains("– routing"),
        "shape-only: n_e is a bound\n{out}"
    );
    // A field Mixtral defines that would change the count is not ignored.
    let e = error(
        r#"{"model_type": "mixtral", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8, "num_local_experts": 4, "num_experts_per_tok": 5}"#,
    );
    assert!(e.contains("top_k 5; allowed: 1 to experts (4)"), "{e}");
}

/// Phi-3-mini reads as Mistral with its window of 2047 and no note: every
/// field it writes is applied or known to change nothing.
#[test]
fn phi3_applies_its_window_and_notes_nothing() {
    let c = load("phi-3-mini-4k.json");
    assert_eq!(
        (c.d_model, c.mlp.d_ff, c.layers, c.attention.window),
        (3072, 8192, 32, Some(2047))
    );
    assert!(!c.bias && !c.vocab.tied);
    let (code, out, err) =
        common::cli(&["check", "--config", "tests/fixtures/hf/phi-3-mini-4k.json"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(!err.contains("unknown to shapetrace"), "{err}");
    // A longrope scaling, which its 128k sibling uses, is refused by name.
    let e = error(
        r#"{"model_type": "phi3", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 8, "num_hidden_layers": 1, "vocab_size": 9, "max_position_embeddings": 8, "rope_scaling": {"type": "longrope", "short_factor": [1.0], "long_factor": [1.0]}}"#,
    );
    assert!(e.contains("rope_scaling"), "{e}");
}

/// `check` passes on every family's config.json, shapes only, with no
/// note: every field each file writes is applied or known to change
/// nothing.
#[test]
fn every_family_passes_check_shape_only_and_notes_nothing() {
    let files: Vec<_> = std::fs::read_dir("tests/fixtures/hf")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    assert!(files.len() >= 15, "{files:?}");
    for file in files {
        let f = file.to_str().unwrap();
        let (code, out, err) = common::cli(&["check", "--config", f, "--shape-only"]);
        assert_eq!(code, Some(0), "{f}\n{out}{err}");
        assert!(out.contains("checks hold"), "{f}\n{out}");
        assert!(!err.contains("unknown to shapetrace"), "{f}: {err}");
    }
}

/// What each family applies, read back from the resolved config.
#[test]
fn the_families_apply_their_own_block_settings() {
    let neox = load("pythia-160m.json");
    assert!(neox.parallel && !neox.norms.shared && neox.bias && !neox.vocab.tied);
    assert_eq!((neox.rotary_dims(), neox.head_dim()), (16, 64));
    assert_eq!(
        neox.attention.fused_qkv,
        shapetrace::config::QkvFusion::Grouped
    );

    let falcon = load("falcon-7b.json");
    assert!(falcon.parallel && falcon.norms.shared && !falcon.bias && falcon.norm_bias());
    assert_eq!(
        (
            falcon.attention.kv_heads,
            falcon.mlp.d_ff,
            falcon.positions.context
        ),
        (1, 4 * 4544, Some(2048))
    );
    assert_eq!(
        falcon.attention.fused_qkv,
        shapetrace::config::QkvFusion::Concat
    );

    let opt = load("opt-125m.json");
    assert_eq!(
        (opt.positions.offset, opt.positions(), opt.mlp.act),
        (2, 2050, Act::Relu)
    );
    assert!(opt.bias && opt.vocab.tied && opt.norms.final_norm);

    let gemma = load("gemma-2b.json");
    assert_eq!(
        (gemma.mlp.act, gemma.norms.kind),
        (Act::Geglu, NormKind::RmsNormPlusOne)
    );
    assert!(gemma.vocab.embed_scale && gemma.vocab.tied);
    assert_eq!((gemma.head_dim(), gemma.attention.kv_heads), (256, 1));

    let bert = load("bert-base-uncased.json");
    assert!(bert.encoder && bert.norms.embed && !bert.norms.final_norm);
    assert_eq!(
        (bert.vocab.token_types, bert.vocab.head),
        (Some(2), shapetrace::config::Head::Pooler)
    );
    assert_eq!(bert.norms.placement, shapetrace::config::Placement::Post);

    let two = load("gemma-2-2b.json");
    assert_eq!(two.norms.placement, shapetrace::config::Placement::Sandwich);
    assert_eq!(
        (two.window_at(1), two.window_at(2), two.window_at(25)),
        (Some(4096), None, Some(4096))
    );
    assert_eq!(
        (
            two.attention.softcap,
            two.vocab.logit_softcap,
            two.attention.query_scale
        ),
        (Some(50.0), Some(30.0), Some(256))
    );
}

/// Each family's fields that shapetrace does not apply are refused by
/// name, in one line.
#[test]
fn the_families_refuse_what_they_do_not_apply() {
    let base = |model_type: &str, extra: &str| {
        format!(
            r#"{{"model_type": "{model_type}", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128, "ffn_dim": 128, "num_hidden_layers": 2, "vocab_size": 9, "max_position_embeddings": 8{extra}}}"#
        )
    };
    for (text, want) in [
        (base("falcon", r#", "alibi": true"#), "'alibi' is true"),
        (
            base("falcon", r#", "num_ln_in_parallel_attn": 2"#),
            "'num_ln_in_parallel_attn' is 2",
        ),
        (
            base("falcon", r#", "partial_rotary_factor": 0.5"#),
            "model_type falcon turns every feature",
        ),
        (
            base(
                "falcon",
                r#", "new_decoder_architecture": true, "parallel_attn": false"#,
            ),
            "'parallel_attn' is false",
        ),
        (
            base("opt", r#", "word_embed_proj_dim": 32"#),
            "'word_embed_proj_dim' is 32",
        ),
        (
            base("opt", r#", "layer_norm_elementwise_affine": false"#),
            "'layer_norm_elementwise_affine' is false",
        ),
        (
            base("gemma2", r#", "hidden_activation": "gelu""#),
            "'hidden_activation' is \"gelu\"",
        ),
        (
            base(
                "gemma2",
                r#", "sliding_window": 2, "layer_types": ["full_attention", "sliding_attention"]"#,
            ),
            "'layer_types'",
        ),
        (
            base("gemma", r#", "use_bidirectional_attention": true"#),
            "'use_bidirectional_attention' is true",
        ),
        (
            base("gpt_neox", r#", "hidden_act": "silu""#),
            "'hidden_act' is \"silu\"",
        ),
        (
            base("gpt_neox", r#", "rotary_pct": 0.2"#),
            "even number of features (3 is not)",
        ),
        (
            base("bert", r#", "position_embedding_type": "relative_key""#),
            "'position_embedding_type' is \"relative_key\"",
        ),
        (
            base("bert", r#", "is_decoder": true"#),
            "'is_decoder' is true",
        ),
        (base("t5", ""), "model_type 't5' is not supported"),
    ] {
        let e = error(&text);
        assert!(e.contains(want), "{text}\n{e}");
        assert!(e.contains("allowed"), "{e}");
    }
}

/// Gemma 2's default layer pattern, and the patterns it may be given: full
/// attention on every n-th block, or none.
#[test]
fn gemma2_layer_types_read_as_full_attention_on_every_nth_block() {
    let dir = tempfile::tempdir().unwrap();
    for (types, windows) in [
        (
            r#""sliding_attention", "full_attention", "sliding_attention", "full_attention""#,
            [2, 0, 2, 0],
        ),
        (
            r#""sliding_attention", "sliding_attention", "full_attention", "sliding_attention""#,
            [2, 2, 0, 2],
        ),
        (
            r#""full_attention", "full_attention", "full_attention", "full_attention""#,
            [0, 0, 0, 0],
        ),
        (
            r#""sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention""#,
            [2, 2, 2, 2],
        ),
    ] {
        let text = format!(
            r#"{{"model_type": "gemma2", "hidden_size": 64, "num_attention_heads": 4, "head_dim": 16, "intermediate_size": 128, "num_hidden_layers": 4, "vocab_size": 9, "max_position_embeddings": 8, "sliding_window": 2, "layer_types": [{types}]}}"#
        );
        let path = write(&dir, "config.json", &text);
        let c = Overlay::from_file(Path::new(&path))
            .unwrap()
            .resolve()
            .unwrap();
        let got: Vec<usize> = (1..=4).map(|n| c.window_at(n).unwrap_or(0)).collect();
        assert_eq!(got, windows, "{types}");
    }
}

/// Gemma 2's caps and window: a field the file leaves out is transformers'
/// default (50, 30, 4096), a null one none; GPT-NeoX's θ is
/// rotary_emb_base, and a top-level rope_theta, which transformers does not
/// read for it, is noted as unknown, not applied.
#[test]
fn absent_fields_take_transformers_defaults_and_null_means_none() {
    let dir = tempfile::tempdir().unwrap();
    let read = |text: &str| {
        let path = write(&dir, "config.json", text);
        Overlay::from_file(Path::new(&path)).unwrap()
    };
    let gemma2 = |extra: &str| {
        format!(
            r#"{{"model_type": "gemma2", "hidden_size": 64, "num_attention_heads": 4, "head_dim": 16, "intermediate_size": 128, "num_hidden_layers": 2, "vocab_size": 9, "max_position_embeddings": 8{extra}}}"#
        )
    };
    let c = read(&gemma2("")).resolve().unwrap();
    assert_eq!(
        (
            c.attention.softcap,
            c.vocab.logit_softcap,
            c.attention.window
        ),
        (Some(50.0), Some(30.0), Some(4096))
    );
    let c = read(&gemma2(
        r#", "attn_logit_softcapping": null, "final_logit_softcapping": null, "sliding_window": null"#,
    ))
    .resolve()
    .unwrap();
    assert_eq!(
        (
            c.attention.softcap,
            c.vocab.logit_softcap,
            c.attention.window
        ),
        (None, None, None)
    );
    let neox = read(
        r#"{"model_type": "gpt_neox", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128, "num_hidden_layers": 2, "vocab_size": 9, "max_position_embeddings": 8, "rope_theta": 500, "rotary_emb_base": 20000}"#,
    );
    let notes = neox.notes.clone().unwrap_or_default().join(" ");
    let c = neox.resolve().unwrap();
    assert_eq!((c.positions.rope_theta, c.rotary_dims()), (20_000.0, 4));
    assert!(notes.contains("rope_theta"), "{notes}");
}

/// The fields a family's reader lists as applied: the words of its
/// module doc's `applied` block (src/config/hf/{reader}.rs), up to
/// `refused` or `silent`.
fn applied(reader: &str) -> String {
    let src = std::fs::read_to_string(format!("src/config/hf/{reader}.rs")).unwrap();
    let start = src
        .find("//! applied")
        .unwrap_or_else(|| panic!("{reader}: no applied block"));
    let rest = &src[start..];
    let end = ["//! refused", "//! silent", "//! ```"]
        .iter()
        .filter_map(|m| rest[1..].find(m))
        .min()
        .unwrap();
    rest[..=end].to_string()
}

/// Every field a config.json's note calls unknown, for a config of `v`.
fn noted_unknown(v: &serde_json::Value) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    std::fs::write(&path, v.to_string()).unwrap();
    let Ok(o) = Overlay::from_file(&path) else {
        return Vec::new();
    };
    o.notes
        .iter()
        .flatten()
        .filter_map(|n| n.split_once("read as changing nothing: ").map(|(_, l)| l))
        .flat_map(|l| {
            l.split(", ")
                .map(|f| f.trim_matches(['\'', ' ']).to_string())
        })
        .collect()
}

/// A field a reader lists as applied is never noted unknown, whatever
/// the other fields say: every fixture config.json, and each with each of
/// its true/false fields flipped (OPT's `_remove_final_layer_norm` was
/// noted unknown under `do_layer_norm_before: false`, whose `&&` skipped
/// reading it).
#[test]
fn a_field_listed_as_applied_is_never_noted_unknown() {
    let readers = [
        ("gpt2", "gpt2"),
        ("llama", "llama"),
        ("mistral", "llama"),
        ("qwen2", "llama"),
        ("mixtral", "llama"),
        ("phi3", "llama"),
        ("gpt_neox", "gpt_neox"),
        ("falcon", "falcon"),
        ("opt", "opt"),
        ("gemma", "gemma"),
        ("gemma2", "gemma"),
        ("bert", "bert"),
    ];
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir("tests/fixtures/hf")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    for dir in std::fs::read_dir("tests/fixtures").unwrap() {
        let p = dir.unwrap().path().join("config.json");
        if p.exists() {
            files.push(p);
        }
    }
    let mut tried = 0;
    for file in files {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let Some(kind) = v["model_type"].as_str() else {
            continue;
        };
        let reader = readers.iter().find(|(m, _)| *m == kind).unwrap().1;
        let listed = applied(reader);
        let mut variants = vec![v.clone()];
        for (k, b) in v.as_object().unwrap() {
            if let Some(b) = b.as_bool() {
                let mut w = v.clone();
                w[k] = serde_json::Value::Bool(!b);
                variants.push(w);
            }
        }
        for w in variants {
            tried += 1;
            for field in noted_unknown(&w) {
                let word = |s: &str| {
                    s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .any(|t| t == field)
                };
                assert!(
                    !word(&listed),
                    "{}: {field} is listed as applied by {reader}.rs but noted unknown",
                    file.display()
                );
            }
        }
    }
    assert!(tried > 40, "{tried} configs tried");
}
