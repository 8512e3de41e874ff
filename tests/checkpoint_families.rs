//! BERT, OPT, Falcon (both architectures, with and without biases, in
//! parallel and in turn) and Gemma checkpoints as transformers saves them
//! (written by scripts/make_checkpoint_fixtures.py, F32), each traced from
//! its token ids with the config.json beside it, single-file and sharded,
//! to transformers' output within 1e-4: BERT's pooled (B, d), the others'
//! logits (B, T, V). No note is printed for any of their config.json files.
//!
//! And nothing is seeded in silence: a checkpoint that lacks any tensor
//! the model reads is refused naming it by the file's own name, unless
//! `--fill-missing seeded` (then the note and the log's header name it).

mod common;
use common::{cli, largest_delta, refused_in_one_line};
use shapetrace::load::Sources;
use shapetrace::weights::Fill;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn at(dir: &str, name: &str) -> PathBuf {
    Path::new("tests/fixtures").join(dir).join(name)
}

/// The output of a numeric run of checkpoint `weights` from the token ids
/// of fixture `dir`.
fn output(dir: &str, weights: &Path, fill: Fill) -> ndarray::ArrayD<f32> {
    let src = Sources {
        weights: Some(weights.to_path_buf()),
        tokens: Some(at(dir, "tokens.npy").to_str().unwrap().into()),
        fill,
        ..Sources::default()
    };
    common::run_sources(dir, &src).1
}

const FIXTURES: [&str; 9] = [
    "hf-bert-tiny",
    "hf-bert-tiny-sharded",
    "hf-opt-tiny",
    "hf-opt-tiny-post",
    "hf-falcon-tiny",
    "hf-falcon-tiny-new",
    "hf-falcon-tiny-new-nobias",
    "hf-falcon-tiny-seq",
    "hf-gemma-tiny",
];

#[test]
fn each_family_traces_from_ids_to_transformers_and_notes_nothing() {
    for dir in FIXTURES {
        let src = Sources {
            weights: Some(Path::new("tests/fixtures").join(dir)),
            ..Sources::default()
        };
        let default = shapetrace::Request::default();
        let (_, req) = shapetrace::load::resolve(&shapetrace::Overlay::default(), &src, default)
            .unwrap_or_else(|e| panic!("{dir}: {e}"));
        assert!(req.notes.is_empty(), "{dir}: {:?}", req.notes);
        let got = output(dir, &Path::new("tests/fixtures").join(dir), Fill::Refuse);
        let want = shapetrace::npy::read(&at(dir, "output.npy")).unwrap();
        assert_eq!(got.shape(), want.shape(), "{dir}");
        let delta = largest_delta(&got, &want);
        assert!(delta < 1e-4, "{dir}: |Δ| {delta}");
    }
}

/// The fixture without its token-type table, filled from the seed: it
/// runs, and its output is not transformers' (the table matters), so a
/// model that seeded it in silence would be caught by the oracle above.
#[test]
fn a_missing_tensor_is_refused_by_its_own_name_or_seeded_aloud() {
    let dir = "hf-bert-tiny-no-types";
    let path = Path::new("tests/fixtures").join(dir);
    let p = path.to_str().unwrap();
    let tokens = at(dir, "tokens.npy");
    let tokens = tokens.to_str().unwrap();
    refused_in_one_line(
        &["trace", "--weights", p, "--tokens", tokens],
        "missing embeddings.token_type_embeddings.weight (2,64); allowed: a checkpoint holding every tensor the model reads, or --fill-missing seeded",
    );
    let (code, out, err) = cli(&[
        "trace",
        "--weights",
        p,
        "--tokens",
        tokens,
        "--fill-missing",
        "seeded",
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("--fill-missing seeded drew 1 tensor from the seed, in place of what the file lacks: embeddings.token_type_embeddings.weight (2,64)"),
        "{err}"
    );
    let header: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(
        header["seeded"],
        serde_json::json!(["embeddings.token_type_embeddings.weight (2,64)"])
    );
    // Shapes only, the header names it too.
    let (code, out, err) = cli(&[
        "trace",
        "--weights",
        p,
        "--fill-missing",
        "seeded",
        "--shape-only",
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let header: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(
        header["seeded"],
        serde_json::json!(["embeddings.token_type_embeddings.weight (2,64)"])
    );
    // Without --weights there is nothing to fill.
    let (code, _, err) = cli(&["trace", "--fill-missing", "seeded"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--weights"), "{err}");
    // A whole checkpoint's header names nothing seeded.
    let (_, whole, _) = cli(&[
        "trace",
        "--weights",
        "tests/fixtures/hf-bert-tiny",
        "--tokens",
        tokens,
        "--format",
        "json",
    ]);
    let header: serde_json::Value = serde_json::from_str(whole.lines().next().unwrap()).unwrap();
    assert!(header.get("seeded").is_none(), "{header}");
    let seeded = output(dir, &path, Fill::Seeded);
    let want = shapetrace::npy::read(&at(dir, "output.npy")).unwrap();
    assert!(
        largest_delta(&seeded, &want) > 1e-2,
        "the token types change nothing"
    );
}

/// Writes `src`'s tensors but `drop` (renamed by `rename`) as one file in
/// a new folder beside a copy of `config`.
fn rewritten(
    src: &Path,
    config: Option<&Path>,
    drop: &[&str],
    rename: impl Fn(&str) -> String,
) -> tempfile::TempDir {
    let bytes = std::fs::read(src).unwrap();
    let file = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let kept: Vec<(String, safetensors::tensor::TensorView)> = file
        .tensors()
        .into_iter()
        .filter(|(n, _)| !drop.contains(&n.as_str()))
        .map(|(n, t)| (rename(&n), t))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let out = safetensors::tensor::serialize(kept, None::<HashMap<String, String>>).unwrap();
    std::fs::write(dir.path().join("model.safetensors"), out).unwrap();
    if let Some(c) = config {
        std::fs::copy(c, dir.path().join("config.json")).unwrap();
    }
    dir
}

/// Each kind of tensor a model reads — the embedding norm, the pooler,
/// the positions, the head, a bias, a norm, the token table — refused by
/// the file's name when the file lacks it, and only when the run reads it.
#[test]
fn every_kind_of_missing_tensor_is_named() {
    let cases = [
        ("hf-bert-tiny", "embeddings.LayerNorm.weight", "(64)"),
        ("hf-bert-tiny", "pooler.dense.weight", "(64,64)"),
        (
            "hf-bert-tiny",
            "embeddings.position_embeddings.weight",
            "(16,64)",
        ),
        ("hf-bert-tiny", "encoder.layer.1.output.dense.bias", "(64)"),
        (
            "hf-bert-tiny",
            "encoder.layer.0.attention.output.LayerNorm.bias",
            "(64)",
        ),
        (
            "hf-opt-tiny",
            "model.decoder.embed_tokens.weight",
            "(96,64)",
        ),
        (
            "hf-opt-tiny",
            "model.decoder.final_layer_norm.weight",
            "(64)",
        ),
        (
            "hf-falcon-tiny",
            "transformer.h.1.input_layernorm.bias",
            "(64)",
        ),
        ("hf-qwen2-tiny", "lm_head.weight", "(96,64)"),
        (
            "hf-qwen2-tiny",
            "model.layers.0.self_attn.k_proj.bias",
            "(32)",
        ),
    ];
    for (fixture, drop, shape) in cases {
        let dir = rewritten(
            &at(fixture, "model.safetensors"),
            Some(&at(fixture, "config.json")),
            &[drop],
            str::to_string,
        );
        let w = dir.path().to_str().unwrap();
        let tokens = at(fixture, "tokens.npy");
        refused_in_one_line(
            &[
                "trace",
                "--weights",
                w,
                "--tokens",
                tokens.to_str().unwrap(),
            ],
            &format!("missing {drop} {shape}"),
        );
    }
    // From x0 the ends are not read: a file without its head or token
    // table traces the blocks.
    for drop in ["lm_head.weight", "model.embed_tokens.weight"] {
        let fixture = "hf-qwen2-tiny";
        let dir = rewritten(
            &at(fixture, "model.safetensors"),
            Some(&at(fixture, "config.json")),
            &[drop],
            str::to_string,
        );
        let input = at(fixture, "input.npy");
        let (code, _, err) = cli(&[
            "trace",
            "--weights",
            dir.path().to_str().unwrap(),
            "--input",
            input.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{drop}: {err}");
    }
}

/// A parameter no tensor of the file's naming holds (a GPT-2 file under
/// a config whose q, k, v are one fused matrix) is named as ours, never
/// seeded in silence.
#[test]
fn a_parameter_the_naming_cannot_hold_is_named_as_ours() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("fused.toml");
    std::fs::write(&model, "fused_qkv = \"concat\"\n").unwrap();
    refused_in_one_line(
        &[
            "trace",
            "--weights",
            "tests/fixtures/hf-gpt2-tiny.safetensors",
            "--config",
            model.to_str().unwrap(),
        ],
        "missing block1.attn.qkv_proj.weight (64,192) (ours: no GPT-2 tensor holds it)",
    );
}

/// A file's family is told by what it holds: OPT's q_proj beside its fc1
/// is never taken for Llama's, Falcon's h.{i} never for GPT-2's. A
/// config.json of another family is refused naming both, for every pair;
/// a flag its blocks cannot take, naming the file's family; and a file
/// without the block-0 tensor its family is told by is still told by the
/// others, and refused naming the one it lacks.
#[test]
fn a_wrong_guess_never_gives_a_misleading_reason() {
    // (weights, their config.json, the family, its model_type)
    let files = [
        ("hf-opt-tiny", "hf-opt-tiny/config.json", "OPT", "opt"),
        (
            "hf-falcon-tiny",
            "hf-falcon-tiny/config.json",
            "Falcon",
            "falcon",
        ),
        ("hf-bert-tiny", "hf-bert-tiny/config.json", "BERT", "bert"),
        (
            "hf-neox-tiny",
            "hf-neox-tiny/config.json",
            "GPT-NeoX",
            "gpt_neox",
        ),
        (
            "hf-llama-tiny",
            "hf-llama-tiny/config.json",
            "Llama",
            "llama",
        ),
        (
            "hf-gpt2-lm.safetensors",
            "hf-gpt2-lm-config.json",
            "GPT-2",
            "gpt2",
        ),
    ];
    let fixture = |p: &str| {
        Path::new("tests/fixtures")
            .join(p)
            .to_str()
            .unwrap()
            .to_string()
    };
    for (w, _, family, _) in files {
        for (_, config, _, model_type) in files {
            if config.starts_with(w.trim_end_matches(".safetensors")) {
                continue;
            }
            refused_in_one_line(
                &[
                    "trace",
                    "--weights",
                    &fixture(w),
                    "--config",
                    &fixture(config),
                ],
                &format!(
                    "holds {family} tensors, but the model is a config.json of model_type {model_type}"
                ),
            );
        }
    }
    for (fixture_dir, family) in [
        ("hf-opt-tiny", "an OPT checkpoint holds OPT blocks"),
        ("hf-falcon-tiny", "a Falcon checkpoint holds Falcon blocks"),
        ("hf-bert-tiny", "a BERT checkpoint holds a BERT encoder"),
    ] {
        let w = Path::new("tests/fixtures").join(fixture_dir);
        refused_in_one_line(
            &["trace", "--weights", w.to_str().unwrap(), "--act", "swiglu"],
            family,
        );
        // Without its config.json, the family is named as what it needs.
        let alone = rewritten(
            &at(fixture_dir, "model.safetensors"),
            None,
            &[],
            str::to_string,
        );
        let family = family.split(' ').nth(1).unwrap();
        refused_in_one_line(
            &["trace", "--weights", alone.path().to_str().unwrap()],
            &format!("is a {family} checkpoint with no config.json beside it"),
        );
    }
    for (fixture_dir, lacks) in [
        ("hf-opt-tiny", "model.decoder.layers.0.fc1.weight"),
        (
            "hf-falcon-tiny",
            "transformer.h.0.self_attention.query_key_value.weight",
        ),
        (
            "hf-bert-tiny",
            "encoder.layer.0.attention.self.query.weight",
        ),
        ("hf-llama-tiny", "model.layers.0.self_attn.q_proj.weight"),
        (
            "hf-neox-tiny",
            "gpt_neox.layers.0.attention.query_key_value.weight",
        ),
    ] {
        let dir = rewritten(
            &at(fixture_dir, "model.safetensors"),
            Some(&at(fixture_dir, "config.json")),
            &[lacks],
            str::to_string,
        );
        let tokens = at(fixture_dir, "tokens.npy");
        refused_in_one_line(
            &[
                "trace",
                "--weights",
                dir.path().to_str().unwrap(),
                "--tokens",
                tokens.to_str().unwrap(),
            ],
            &format!("missing {lacks} "),
        );
    }
}

/// BertForPreTraining's file: `bert.` before every name and its heads
/// under `cls.`, which the trace (ending in the pooler) leaves unread,
/// saying so; its output is BertModel's.
#[test]
fn a_bert_pretraining_file_traces_its_encoder_and_names_the_heads_left() {
    let fixture = "hf-bert-tiny";
    let dir = rewritten(
        &at(fixture, "model.safetensors"),
        Some(&at(fixture, "config.json")),
        &[],
        |n| format!("bert.{n}"),
    );
    // The heads: a copy of one tensor under a cls. name.
    let bytes = std::fs::read(dir.path().join("model.safetensors")).unwrap();
    let file = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let mut all = file.tensors();
    let bias = file.tensor("bert.pooler.dense.bias").unwrap();
    all.push(("cls.predictions.bias".into(), bias));
    let out = safetensors::tensor::serialize(all, None::<HashMap<String, String>>).unwrap();
    std::fs::write(dir.path().join("model.safetensors"), out).unwrap();
    let got = output(fixture, dir.path(), Fill::Refuse);
    let want = shapetrace::npy::read(&at(fixture, "output.npy")).unwrap();
    assert!(largest_delta(&got, &want) < 1e-4);
    let tokens = at(fixture, "tokens.npy");
    let (code, _, err) = cli(&[
        "trace",
        "--weights",
        dir.path().to_str().unwrap(),
        "--tokens",
        tokens.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(
            "1 tensor of a head the trace does not reach left unread (cls.predictions.bias …)"
        ),
        "{err}"
    );
}

/// `--shape-only --weights`: the file's names and shapes are checked
/// against the model (a missing tensor refused as in a numeric run) and
/// shapes traced, no tensor read: a Q8_0 GGUF file as a safetensors one.
#[test]
fn shapes_only_check_the_file_and_read_no_tensor() {
    for w in [
        "tests/fixtures/hf-bert-tiny",
        "tests/fixtures/hf-falcon-tiny-new",
        "tests/fixtures/gguf-llama-tiny/model-q8_0.gguf",
    ] {
        let (code, out, err) = cli(&["trace", "--weights", w, "--shape-only", "--format", "json"]);
        assert_eq!(code, Some(0), "{w}: {err}");
        let header: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
        assert_eq!(header["mode"], "shape-only", "{w}");
    }
    refused_in_one_line(
        &[
            "trace",
            "--weights",
            "tests/fixtures/hf-bert-tiny-no-types",
            "--shape-only",
        ],
        "missing embeddings.token_type_embeddings.weight (2,64)",
    );
}
