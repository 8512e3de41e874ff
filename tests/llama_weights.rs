//! Hugging Face Llama checkpoints (fixtures written by
//! scripts/make_llama_fixture.py with transformers): one F32 file, the same
//! model in three shards under a `model.safetensors.index.json`, and a BF16
//! copy, each traced from x0 (`inputs_embeds`) to transformers' last hidden
//! state and from token ids to its logits, with the config.json beside
//! them; and every bad checkpoint refused in one line with exit code 2.

mod common;
use common::{cli, largest_delta};
use ndarray::ArrayD;
use shapetrace::load::{Sources, resolve};
use shapetrace::{ModelConfig, Overlay, Request};
use std::path::{Path, PathBuf};

const TINY: &str = "tests/fixtures/hf-llama-tiny";
const SHARDED: &str = "tests/fixtures/hf-llama-tiny-sharded";
const BF16: &str = "tests/fixtures/hf-llama-tiny-bf16";

fn at(dir: &str, name: &str) -> PathBuf {
    Path::new(dir).join(name)
}

fn npy(path: &Path) -> ArrayD<f32> {
    shapetrace::npy::read(path).unwrap()
}

/// Where a run starts: x0 from the fixture's input, or its token ids.
#[derive(Clone, Copy, Debug)]
enum Start {
    Input,
    Tokens,
}

/// The config and the final output of a numeric run of `weights` from
/// `start`, with `flags` laid over.
fn run(weights: &Path, start: Start, flags: &Overlay) -> (ModelConfig, ArrayD<f32>) {
    let mut src = Sources {
        weights: Some(weights.to_path_buf()),
        ..Sources::default()
    };
    match start {
        Start::Input => src.input = Some(at(TINY, "input.npy")),
        Start::Tokens => src.tokens = Some(at(TINY, "tokens.npy").to_str().unwrap().into()),
    }
    let req = Request {
        keep_output: true,
        ..Request::default()
    };
    let (cfg, req) = resolve(flags, &src, req).unwrap();
    let traced = shapetrace::trace_request(&cfg, &req).unwrap();
    assert!(traced.trace.failure.is_none(), "{:?}", traced.trace.failure);
    (cfg, traced.output.unwrap())
}

/// What transformers computed for `start`, from the fixture folder `dir`.
fn want(dir: &str, start: Start) -> ArrayD<f32> {
    match start {
        Start::Input => npy(&at(dir, "hidden.npy")),
        Start::Tokens => npy(&at(dir, "logits.npy")),
    }
}

/// Asserts that `weights` from `start` gives transformers' output in `dir`
/// to 1e-4, and returns the config.
fn matches(weights: &Path, start: Start, dir: &str) -> ModelConfig {
    let (cfg, got) = run(weights, start, &Overlay::default());
    let delta = largest_delta(&got, &want(dir, start));
    assert!(
        delta < 1e-4,
        "{} from {start:?}: |Δ| {delta}",
        weights.display()
    );
    cfg
}

#[test]
fn the_f32_file_matches_transformers_from_x0_and_from_token_ids() {
    let weights = at(TINY, "model.safetensors");
    for start in [Start::Input, Start::Tokens] {
        matches(&weights, start, TINY);
    }
    // The oracle is not trivially met: the other batch element's outputs differ.
    let (_, got) = run(&weights, Start::Tokens, &Overlay::default());
    let swapped = want(TINY, Start::Tokens)
        .slice(ndarray::s![..;-1, .., ..])
        .to_owned()
        .into_dyn();
    assert!(largest_delta(&got, &swapped) > 1.0);
}

#[test]
fn the_config_json_beside_the_checkpoint_is_read() {
    let cfg = matches(&at(TINY, "model.safetensors"), Start::Input, TINY);
    assert_eq!(
        (
            cfg.d_model,
            cfg.attention.heads,
            cfg.attention.kv_heads,
            cfg.mlp.d_ff,
            cfg.layers
        ),
        (64, 4, 2, 128, 2)
    );
    assert_eq!(
        (cfg.vocab.size, cfg.positions.context, cfg.vocab.tied),
        (Some(96), Some(16), false)
    );
    assert_eq!((cfg.norms.eps, cfg.positions.rope_theta), (1e-5, 10_000.0));
    assert_eq!(cfg.preset, "llama (config.json)");
    assert_eq!((cfg.batch, cfg.seq), (2, 4)); // from the input, over the config's 1 × 16
}

/// A folder in `dir` holding the F32 file and `config` as config.json
/// (none when `None`).
fn lone_copy(dir: &Path, config: Option<&str>) -> PathBuf {
    let weights = dir.join("model.safetensors");
    std::fs::copy(at(TINY, "model.safetensors"), &weights).unwrap();
    if let Some(text) = config {
        std::fs::write(dir.join("config.json"), text).unwrap();
    }
    weights
}

fn fixture_config() -> String {
    std::fs::read_to_string(at(TINY, "config.json")).unwrap()
}

#[test]
fn another_config_json_beside_it_changes_the_outputs_and_config_wins() {
    // The same weights beside a config.json whose ε is 0.5: read, it moves
    // every norm, so the run no longer matches.
    let dir = tempfile::tempdir().unwrap();
    let wide_eps = fixture_config().replace("\"rms_norm_eps\": 1e-05", "\"rms_norm_eps\": 0.5");
    assert_ne!(wide_eps, fixture_config());
    let weights = lone_copy(dir.path(), Some(&wide_eps));
    let (cfg, got) = run(&weights, Start::Input, &Overlay::default());
    assert_eq!(cfg.norms.eps, 0.5);
    assert!(largest_delta(&got, &want(TINY, Start::Input)) > 1e-2);
    // --config wins over the file beside the checkpoint.
    let src = Sources {
        config: Some(at(TINY, "config.json")),
        weights: Some(weights),
        ..Sources::default()
    };
    let (cfg, _) = resolve(&Overlay::default(), &src, Request::default()).unwrap();
    assert_eq!(cfg.norms.eps, 1e-5);
}

#[test]
fn without_a_config_json_the_model_is_read_off_the_shapes_given_heads() {
    let dir = tempfile::tempdir().unwrap();
    let weights = lone_copy(dir.path(), None);
    let w = weights.to_str().unwrap();
    let input = at(TINY, "input.npy");
    let input = input.to_str().unwrap();
    // No heads: one line naming config.json and the heads that fit.
    let (code, _, err) = cli(&["trace", "--weights", w, "--input", input]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    for needle in [
        "holds Llama tensors and no config.json beside it",
        "--config config.json",
        "K/V width 32 and d_model 64 allowing 2, 4, 8, 16, 32, 64",
    ] {
        assert!(err.contains(needle), "'{needle}' not in: {err}");
    }
    let (code, _, err) = cli(&["trace", "--weights", w, "--input", input, "--heads", "3"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("(--heads 3 does not fit)"), "{err}");
    // With the heads, the rest is read off the shapes and matches.
    let flags = Overlay {
        heads: Some(4),
        ..Overlay::default()
    };
    for start in [Start::Input, Start::Tokens] {
        let (cfg, got) = run(&weights, start, &flags);
        assert_eq!(
            (cfg.attention.kv_heads, cfg.mlp.d_ff, cfg.layers),
            (2, 128, 2)
        );
        assert_eq!((cfg.vocab.size, cfg.vocab.tied), (Some(96), false));
        let delta = largest_delta(&got, &want(TINY, start));
        assert!(delta < 1e-4, "{start:?}: |Δ| {delta}");
    }
    // Heads that fit every shape but split the heads otherwise run, and differ.
    let eight = Overlay {
        heads: Some(8),
        ..Overlay::default()
    };
    let (cfg, got) = run(&weights, Start::Input, &eight);
    assert_eq!((cfg.attention.heads, cfg.attention.kv_heads), (8, 4));
    assert!(largest_delta(&got, &want(TINY, Start::Input)) > 1e-2);
}

#[test]
fn the_sharded_copy_matches_from_its_folder_and_from_its_index() {
    for weights in [
        PathBuf::from(SHARDED),
        at(SHARDED, "model.safetensors.index.json"),
    ] {
        for start in [Start::Input, Start::Tokens] {
            let cfg = matches(&weights, start, TINY);
            assert_eq!(cfg.preset, "llama (config.json)");
        }
    }
    // The index does spread the tensors over more than one shard.
    let index = std::fs::read_to_string(at(SHARDED, "model.safetensors.index.json")).unwrap();
    assert!(
        index.contains("model-00003-of-00003.safetensors"),
        "{index}"
    );
}

#[test]
fn the_bf16_copy_matches_the_f32_forward_on_its_rounded_weights() {
    let weights = at(BF16, "model.safetensors");
    for start in [Start::Input, Start::Tokens] {
        matches(&weights, start, BF16);
        // Its rounding shows: the F32 model's outputs are out of reach.
        let (_, got) = run(&weights, start, &Overlay::default());
        assert!(largest_delta(&got, &want(TINY, start)) > 1e-3, "{start:?}");
    }
    let file = std::fs::read(&weights).unwrap();
    let st = safetensors::SafeTensors::deserialize(&file).unwrap();
    assert!(
        st.tensors()
            .iter()
            .all(|(_, t)| t.dtype() == safetensors::Dtype::BF16)
    );
}

#[test]
fn every_weight_lands_on_a_parameter_of_the_model() {
    let src = Sources {
        weights: Some(at(TINY, "model.safetensors")),
        ..Sources::default()
    };
    let (_, req) = resolve(&Overlay::default(), &src, Request::default()).unwrap();
    let w = req.weights.unwrap();
    // Per block: 2 norms, q, k, v, out, gate, up, down; then ln_f, wte, the head.
    assert_eq!(w.len(), 2 * 9 + 3);
    for (name, shape) in [
        ("block1.attn.q_proj.weight", &[64, 64][..]),
        ("block2.attn.k_proj.weight", &[64, 32]),
        ("block2.attn.v_proj.weight", &[64, 32]),
        ("block1.attn.out.weight", &[64, 64]),
        ("block2.mlp.gate.weight", &[64, 128]),
        ("block2.mlp.up.weight", &[64, 128]),
        ("block1.mlp.down.weight", &[128, 64]),
        ("block2.ln_1.weight", &[64]),
        ("block2.ln_2.weight", &[64]),
        ("ln_f.weight", &[64]),
        ("wte", &[96, 64]),
        ("lm_head.weight", &[64, 96]),
    ] {
        assert!(w.get(name, shape).is_some(), "{name} {shape:?}");
    }
}

/// The F32 fixture's tensors: name, shape, values.
fn tensors() -> Vec<(String, Vec<usize>, Vec<f32>)> {
    let file = std::fs::read(at(TINY, "model.safetensors")).unwrap();
    let st = safetensors::SafeTensors::deserialize(&file).unwrap();
    let mut out: Vec<_> = st
        .tensors()
        .into_iter()
        .map(|(name, t)| {
            let values = t
                .data()
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            (name, t.shape().to_vec(), values)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Writes `tensors` as an F32 safetensors file.
fn write(path: &Path, tensors: &[(String, Vec<usize>, Vec<f32>)]) {
    let mut header = serde_json::Map::new();
    let mut data = Vec::new();
    for (name, shape, values) in tensors {
        let from = data.len();
        data.extend(values.iter().flat_map(|v| v.to_le_bytes()));
        header.insert(
            name.clone(),
            serde_json::json!({"dtype": "F32", "shape": shape, "data_offsets": [from, data.len()]}),
        );
    }
    let text = serde_json::to_vec(&header).unwrap();
    let mut bytes = (text.len() as u64).to_le_bytes().to_vec();
    bytes.extend(text);
    bytes.extend(data);
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn the_transpose_on_load_matters() {
    // Each square projection stored as (in, out) instead of nn.Linear's
    // (out, in): every shape still fits, the outputs do not.
    let dir = tempfile::tempdir().unwrap();
    let mut ts = tensors();
    for (name, shape, values) in &mut ts {
        if name.ends_with("q_proj.weight") || name.ends_with("o_proj.weight") {
            let n = shape[0];
            *values = (0..n * n).map(|k| values[(k % n) * n + k / n]).collect();
        }
    }
    let weights = dir.path().join("model.safetensors");
    write(&weights, &ts);
    std::fs::write(dir.path().join("config.json"), fixture_config()).unwrap();
    let (_, got) = run(&weights, Start::Input, &Overlay::default());
    assert!(largest_delta(&got, &want(TINY, Start::Input)) > 1e-2);
    // Written back as they were, they match: the writer is not the cause.
    write(&weights, &tensors());
    let (_, got) = run(&weights, Start::Input, &Overlay::default());
    assert!(largest_delta(&got, &want(TINY, Start::Input)) < 1e-4);
}

/// Runs the binary on `weights` from the fixture input; asserts exit code
/// 2 and one line, and returns it.
fn refused(weights: &Path, extra: &[&str]) -> String {
    let input = at(TINY, "input.npy");
    let mut args = vec![
        "trace",
        "--weights",
        weights.to_str().unwrap(),
        "--input",
        input.to_str().unwrap(),
    ];
    args.extend(extra);
    let (code, out, err) = cli(&args);
    assert_eq!(code, Some(2), "{out}{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    err
}

fn assert_has(err: &str, needles: &[&str]) {
    for needle in needles {
        assert!(err.contains(needle), "'{needle}' not in: {err}");
    }
}

/// A copy of the sharded folder in `dir`, its index rewritten by `edit`.
fn sharded_copy(dir: &Path, edit: impl Fn(&mut serde_json::Value)) -> PathBuf {
    for entry in std::fs::read_dir(SHARDED).unwrap() {
        let p = entry.unwrap().path();
        std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
    }
    let index = dir.join("model.safetensors.index.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&index).unwrap()).unwrap();
    edit(&mut v);
    std::fs::write(&index, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    index
}

#[test]
fn an_index_naming_a_missing_shard_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let index = sharded_copy(dir.path(), |_| {});
    std::fs::remove_file(dir.path().join("model-00002-of-00003.safetensors")).unwrap();
    for weights in [index.clone(), dir.path().to_path_buf()] {
        let err = refused(&weights, &[]);
        assert_has(
            &err,
            &[
                "names shard model-00002-of-00003.safetensors, which cannot be read",
                "allowed: shards that sit beside the index",
            ],
        );
    }
    // A shard outside the index's folder is refused by name before any is opened.
    let dir = tempfile::tempdir().unwrap();
    let index = sharded_copy(dir.path(), |v| {
        v["weight_map"]["model.norm.weight"] = "../model-00001-of-00003.safetensors".into();
    });
    assert_has(
        &refused(&index, &[]),
        &[
            "not a usable safetensors index",
            "maps model.norm.weight to '../model-00001-of-00003.safetensors', not a file name beside the index",
        ],
    );
}

#[test]
fn a_shard_lacking_a_tensor_the_index_promises_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let index = sharded_copy(dir.path(), |v| {
        let map = &mut v["weight_map"];
        let elsewhere = [
            "model-00001-of-00003.safetensors",
            "model-00002-of-00003.safetensors",
        ]
        .into_iter()
        .find(|s| map["model.norm.weight"] != *s)
        .unwrap();
        map["model.norm.weight"] = elsewhere.into();
    });
    let err = refused(&index, &[]);
    assert_has(
        &err,
        &[
            "maps tensor model.norm.weight to shard model-0000",
            "which does not hold it; allowed: an index mapping each tensor to the shard that holds it",
        ],
    );
}

#[test]
fn a_bad_index_or_an_empty_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let index = sharded_copy(dir.path(), |v| v["weight_map"] = serde_json::json!([1, 2]));
    assert_has(&refused(&index, &[]), &["weight_map is an array"]);
    std::fs::write(&index, "{\"weight_map\": {\"a\": \"x\", \"a\": \"y\"}}").unwrap();
    assert_has(&refused(&index, &[]), &["'a'"]);
    let empty = tempfile::tempdir().unwrap();
    assert_has(
        &refused(empty.path(), &[]),
        &["is a folder without model.safetensors or model.safetensors.index.json"],
    );
}

#[test]
fn a_tensor_of_the_wrong_shape_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut ts = tensors();
    let q = ts
        .iter_mut()
        .find(|t| t.0 == "model.layers.1.self_attn.q_proj.weight")
        .unwrap();
    q.1 = vec![64, 32];
    q.2.truncate(64 * 32);
    let weights = dir.path().join("model.safetensors");
    write(&weights, &ts);
    std::fs::write(dir.path().join("config.json"), fixture_config()).unwrap();
    assert_has(
        &refused(&weights, &[]),
        &[
            "1 tensor problem",
            "model.layers.1.self_attn.q_proj.weight: expected (64,64), found (64,32)",
        ],
    );
}

#[test]
fn a_config_json_of_another_layer_count_is_named() {
    for (layers, needles) in [
        (
            3,
            &[
                "the file holds 2 blocks of d_model 64, the model 3 of d_model 64",
                "missing model.layers.2.input_layernorm.weight (64)",
            ],
        ),
        (
            1,
            &[
                "the file holds 2 blocks of d_model 64, the model 1 of d_model 64",
                "unknown model.layers.1.input_layernorm.weight (64)",
            ],
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let config = fixture_config().replace(
            "\"num_hidden_layers\": 2",
            &format!("\"num_hidden_layers\": {layers}"),
        );
        assert_ne!(config, fixture_config());
        let weights = lone_copy(dir.path(), Some(&config));
        let err = refused(&weights, &[]);
        assert_has(&err, needles);
        assert_has(&err, &["config.json beside it)"]);
    }
}

#[test]
fn llama_blocks_run_only_as_llama_blocks_and_gpt2_files_stay_ungated() {
    let weights = at(TINY, "model.safetensors");
    assert_has(
        &refused(&weights, &["--act", "gelu"]),
        &["act gelu has no gate projection; a Llama checkpoint holds Llama blocks"],
    );
    assert_has(
        &refused(&weights, &["--norm", "layernorm"]),
        &["norm layernorm is not the file's RMSNorm"],
    );
    let gpt = Path::new("tests/fixtures/nanogpt-tiny.safetensors");
    assert_has(
        &refused(gpt, &["--heads", "4", "--act", "swiglu"]),
        &["act swiglu has a gate projection; a GPT-2 checkpoint holds GPT-2-style blocks"],
    );
}

#[test]
fn the_stepper_opens_on_a_llama_checkpoint() {
    let src = Sources {
        weights: Some(at(TINY, "model.safetensors")),
        ..Sources::default()
    };
    let (cfg, req) = resolve(&Overlay::default(), &src, Request::default()).unwrap();
    shapetrace::plan::plan(&cfg, &req).unwrap();
    let given = shapetrace::tui::app::Given::new(&req, Some("model.safetensors".into()));
    let lp = common::stepper(cfg, given);
    let screen = common::screen_of(&lp.app, 120, 40);
    assert!(screen.contains("model.safetensors"), "{screen}");
}
