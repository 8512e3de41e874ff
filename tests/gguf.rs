//! GGUF files (llama.cpp's format) as `--weights` and `--config`: the tiny
//! Llama written by scripts/make_gguf_fixture.py with llama.cpp's own
//! `gguf` package traces to transformers' logits (F32; Q8_0 against the
//! logits of its dequantised weights), its metadata gives the config.json's
//! model, `params` shows the bytes as stored, a file of a type no numeric
//! run reads traces shapes only and refuses numbers by name, and every
//! hostile file is refused in one line with exit code 2.

mod common;
use common::{cli, largest_delta, refused_in_one_line};
use ndarray::ArrayD;
use shapetrace::load::{Sources, resolve};
use shapetrace::{ModelConfig, Overlay, Request};
use std::path::{Path, PathBuf};

const DIR: &str = "tests/fixtures/gguf-llama-tiny";
const HF: &str = "tests/fixtures/hf-llama-tiny";

fn at(dir: &str, name: &str) -> PathBuf {
    Path::new(dir).join(name)
}

/// The logits of a numeric run of `weights` (alone: its metadata is the
/// model) from the tiny Llama's token ids.
fn logits(weights: &Path) -> ArrayD<f32> {
    let src = Sources {
        weights: Some(weights.to_path_buf()),
        tokens: Some(at(HF, "tokens.npy").to_str().unwrap().into()),
        ..Sources::default()
    };
    let req = Request {
        keep_output: true,
        ..Request::default()
    };
    let (cfg, req) = resolve(&Overlay::default(), &src, req).unwrap();
    assert!(req.weights.is_some());
    let traced = shapetrace::trace_request(&cfg, &req).unwrap();
    assert!(traced.trace.failure.is_none(), "{:?}", traced.trace.failure);
    traced.output.unwrap()
}

fn npy(path: &Path) -> ArrayD<f32> {
    shapetrace::npy::read(path).unwrap()
}

#[test]
fn the_f32_file_traces_to_transformers_logits() {
    let got = logits(&at(DIR, "model-f32.gguf"));
    let delta = largest_delta(&got, &npy(&at(HF, "logits.npy")));
    assert!(delta < 1e-4, "|Δ| {delta}");
}

#[test]
fn the_q8_0_file_traces_to_the_logits_of_its_dequantised_weights() {
    let got = logits(&at(DIR, "model-q8_0.gguf"));
    let delta = largest_delta(&got, &npy(&at(DIR, "logits-q8_0.npy")));
    assert!(delta < 1e-4, "|Δ| {delta}");
    // Its weights are not the F32 ones: the F32 logits are far off.
    let off = largest_delta(&got, &npy(&at(HF, "logits.npy")));
    assert!(off > 1e-2, "|Δ| against F32 {off}");
}

#[test]
fn the_q_and_k_rows_are_put_back_in_the_models_order() {
    let g = shapetrace::weights::gguf::Gguf::open(&at(DIR, "model-f32.gguf")).unwrap();
    let hf = shapetrace::weights::Checkpoint::open(&at(HF, "model.safetensors")).unwrap();
    for name in [
        "model.layers.0.self_attn.q_proj.weight",
        "model.layers.1.self_attn.k_proj.weight",
        "model.layers.0.self_attn.v_proj.weight",
        "lm_head.weight",
    ] {
        let ours = g.mapped(name).unwrap();
        let theirs = hf.file.mapped(name).unwrap();
        assert_eq!(ours.shape(), theirs.shape(), "{name}");
        assert!(ours.same_values(&theirs), "{name}");
    }
    // The file's own q rows are not the model's: reordering is needed.
    let q = "model.layers.0.self_attn.q_proj.weight";
    assert!(g.mapped(q).unwrap().is_owned());
    assert!(
        !g.mapped("model.layers.0.self_attn.v_proj.weight")
            .unwrap()
            .is_owned()
    );
}

/// The model a model file gives, unnamed.
fn model_of(path: &Path) -> ModelConfig {
    let mut o = Overlay::from_file(path).unwrap();
    o.name = None;
    o.resolve().unwrap()
}

#[test]
fn config_from_the_metadata_is_the_config_jsons() {
    let json = model_of(&at(HF, "config.json"));
    for f in ["model-f32.gguf", "model-q8_0.gguf"] {
        assert_eq!(model_of(&at(DIR, f)), json, "{f}");
    }
    let named = Overlay::from_file(&at(DIR, "model-q8_0.gguf"))
        .unwrap()
        .name;
    assert_eq!(named.as_deref(), Some("hf-llama-tiny (model-q8_0.gguf)"));
    // And it is what the CLI's --config gives: the same params table.
    let (c1, a, e1) = cli(&["params", "--config", &format!("{DIR}/model-f32.gguf")]);
    let (c2, b, e2) = cli(&["params", "--config", &format!("{HF}/config.json")]);
    assert_eq!((c1, c2), (Some(0), Some(0)), "{e1}{e2}");
    let body = |s: &str| s.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&a), body(&b));
}

#[test]
fn params_shows_the_bytes_as_stored() {
    let q8 = format!("{DIR}/model-q8_0.gguf");
    let (code, out, err) = cli(&["params", "--weights", &q8]);
    assert_eq!(code, Some(0), "{err}");
    // 86,016 weights in 2-D matrices (embedding, head, 2 blocks' 7
    // projections), 320 in norms.
    assert!(
        out.contains("Q8_0: 86016 weights in 91392 bytes (34 bytes per 32 weights)"),
        "{out}"
    );
    assert!(
        out.contains("F32: 320 weights in 1280 bytes (4 bytes per weight)"),
        "{out}"
    );
    let (code, out, err) = cli(&["params", "--weights", &format!("{DIR}/model-f32.gguf")]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("F32: 86336 weights in 345344 bytes"), "{out}");
    assert!(!out.contains("Q8_0"), "{out}");
    let (code, out, err) = cli(&["params", "--weights", &q8, "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let types = v["stored"]["types"].as_array().unwrap();
    let q = types.iter().find(|t| t["type"] == "Q8_0").unwrap();
    assert_eq!(
        (q["weights"].as_u64(), q["bytes"].as_u64()),
        (Some(86016), Some(91392))
    );
    assert_eq!(q["block_bytes"].as_u64(), Some(34));
}

// ---- A tiny GGUF writer, for files the fixtures do not hold. ----

/// A metadata value.
enum V {
    U32(u32),
    F32(f32),
    Str(&'static str),
}

/// A tensor: name, ggml dims (ne[0] first), type, offset (None: the
/// next aligned one, its bytes written there), bytes.
struct T {
    name: String,
    dims: Vec<u64>,
    ty: u32,
    offset: Option<u64>,
    data: Vec<u8>,
}

fn t(name: &str, dims: &[u64], ty: u32, bytes: usize) -> T {
    T {
        name: name.into(),
        dims: dims.to_vec(),
        ty,
        offset: None,
        data: vec![0; bytes],
    }
}

fn string(out: &mut Vec<u8>, s: &str) {
    out.extend((s.len() as u64).to_le_bytes());
    out.extend(s.as_bytes());
}

/// A GGUF v3 file of `meta` and `tensors`, 32-byte aligned.
fn gguf(meta: &[(&str, V)], tensors: &[T]) -> Vec<u8> {
    let mut out = b"GGUF".to_vec();
    out.extend(3u32.to_le_bytes());
    out.extend((tensors.len() as u64).to_le_bytes());
    out.extend((meta.len() as u64).to_le_bytes());
    for (k, v) in meta {
        string(&mut out, k);
        match v {
            V::U32(n) => {
                out.extend(4u32.to_le_bytes());
                out.extend(n.to_le_bytes());
            }
            V::F32(x) => {
                out.extend(6u32.to_le_bytes());
                out.extend(x.to_le_bytes());
            }
            V::Str(s) => {
                out.extend(8u32.to_le_bytes());
                string(&mut out, s);
            }
        }
    }
    let mut next = 0u64;
    let mut placed = Vec::new();
    for x in tensors {
        string(&mut out, &x.name);
        out.extend((x.dims.len() as u32).to_le_bytes());
        for d in &x.dims {
            out.extend(d.to_le_bytes());
        }
        out.extend(x.ty.to_le_bytes());
        let off = x.offset.unwrap_or(next);
        out.extend(off.to_le_bytes());
        placed.push(off);
        next = (off + x.data.len() as u64).div_ceil(32) * 32;
    }
    let start = out.len().div_ceil(32) * 32;
    out.resize(start, 0);
    // A tensor given its own offset has no data written: it lies where
    // the test puts it, inside the data or not.
    for (x, off) in tensors
        .iter()
        .zip(placed)
        .filter(|(x, _)| x.offset.is_none())
    {
        let at = start + off as usize;
        if out.len() < at + x.data.len() {
            out.resize(at + x.data.len(), 0);
        }
        out[at..at + x.data.len()].copy_from_slice(&x.data);
    }
    out.resize(out.len().div_ceil(32) * 32, 0);
    out
}

/// A one-block llama of width 16 (2 heads of 8), ffn 256, vocab 8, its
/// ffn_down of ggml type `down` (in `down_bytes`), the rest F32.
fn tiny_llama(down: u32, down_bytes: usize) -> Vec<u8> {
    tiny_llama_without(down, down_bytes, "")
}

/// [`tiny_llama`] without its tensor named `drop`.
fn tiny_llama_without(down: u32, down_bytes: usize, drop: &str) -> Vec<u8> {
    let meta = [
        ("general.architecture", V::Str("llama")),
        ("llama.block_count", V::U32(1)),
        ("llama.context_length", V::U32(8)),
        ("llama.embedding_length", V::U32(16)),
        ("llama.feed_forward_length", V::U32(256)),
        ("llama.attention.head_count", V::U32(2)),
        ("llama.attention.head_count_kv", V::U32(2)),
        ("llama.attention.layer_norm_rms_epsilon", V::F32(1e-5)),
        ("llama.vocab_size", V::U32(8)),
    ];
    let f = |name: &str, dims: &[u64]| t(name, dims, 0, 4 * dims.iter().product::<u64>() as usize);
    let mut ts = vec![
        f("token_embd.weight", &[16, 8]),
        f("output_norm.weight", &[16]),
        f("output.weight", &[16, 8]),
        f("blk.0.attn_norm.weight", &[16]),
        f("blk.0.ffn_norm.weight", &[16]),
        f("blk.0.ffn_gate.weight", &[16, 256]),
        f("blk.0.ffn_up.weight", &[16, 256]),
        t("blk.0.ffn_down.weight", &[256, 16], down, down_bytes),
    ];
    for p in ["attn_q", "attn_k", "attn_v", "attn_output"] {
        ts.push(f(&format!("blk.0.{p}.weight"), &[16, 16]));
    }
    ts.retain(|t| t.name != drop);
    gguf(&meta, &ts)
}

fn write(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn a_q4_k_file_traces_shapes_only_and_refuses_numbers_by_name() {
    let dir = tempfile::tempdir().unwrap();
    // Q4_K: 144 bytes per 256 weights, 16 rows of 256.
    let q4k = write(&dir, "q4k.gguf", &tiny_llama(12, 16 * 144));
    let (code, out, err) = cli(&["trace", "--weights", &q4k]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        err.contains("is Q4_K") && err.contains("shapes only"),
        "{err}"
    );
    let want = "tensor blk.0.ffn_down.weight is Q4_K, which a numeric run cannot read; allowed for --tokens";
    refused_in_one_line(&["trace", "--weights", &q4k, "--tokens", "1,2"], want);
    refused_in_one_line(&["trace", "--weights", &q4k, "--numeric"], want);
    refused_in_one_line(&["check", "--weights", &q4k], want);
    let (code, out, err) = cli(&["params", "--weights", &q4k]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("Q4_K: 4096 weights in 2304 bytes (144 bytes per 256 weights)"),
        "{out}"
    );
    // The same file all F32 runs numbers from its token ids.
    let f32 = write(&dir, "f32.gguf", &tiny_llama(0, 4 * 4096));
    let (code, out, err) = cli(&["trace", "--weights", &f32, "--tokens", "1,2"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(!err.contains("shapes only"), "{err}");
}

#[test]
fn a_file_without_a_needed_key_or_of_another_architecture_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let good = tiny_llama(0, 4 * 4096);
    let cut = |key: &str, with: &str| {
        // Renames the key in place (same length), so the file stays whole.
        let mut b = good.clone();
        let at = b
            .windows(key.len())
            .position(|w| w == key.as_bytes())
            .unwrap();
        b[at..at + with.len()].copy_from_slice(with.as_bytes());
        b
    };
    let p = write(
        &dir,
        "a.gguf",
        &cut("llama.block_count", "llama.block_cnnt"),
    );
    refused_in_one_line(
        &["params", "--config", &p],
        "missing metadata key llama.block_count",
    );
    refused_in_one_line(
        &["trace", "--weights", &p],
        "missing metadata key llama.block_count",
    );
    // general.architecture's value: after its key, type and length.
    let mut b = good.clone();
    let key = b"general.architecture";
    let k = b.windows(key.len()).position(|w| w == key).unwrap();
    let v = k + key.len() + 4 + 8;
    b[v..v + 5].copy_from_slice(b"mamba");
    let p = write(&dir, "c.gguf", &b);
    refused_in_one_line(
        &["params", "--config", &p],
        "metadata key general.architecture is 'mamba'; allowed: llama, qwen2",
    );
    // The good file is taken.
    let p = write(&dir, "d.gguf", &good);
    let (code, _, err) = cli(&["params", "--config", &p]);
    assert_eq!(code, Some(0), "{err}");
}

/// Two F32 tensors of 8 values, `a` then `b`.
fn two() -> Vec<T> {
    vec![t("a", &[8], 0, 32), t("b", &[8], 0, 32)]
}

fn meta() -> Vec<(&'static str, V)> {
    vec![("general.architecture", V::Str("none"))]
}

#[test]
fn hostile_files_are_refused_in_one_line_naming_the_value() {
    let dir = tempfile::tempdir().unwrap();
    let good = gguf(&meta(), &two());
    let mut cases: Vec<(&str, Vec<u8>, &str)> = Vec::new();
    let mut b = good.clone();
    b[3] = b'X';
    cases.push(("magic", b, "not the magic GGUF"));
    for (v, want) in [(1u32, "version 1 (GGUF v1"), (4, "version 4;")] {
        let mut b = good.clone();
        b[4..8].copy_from_slice(&v.to_le_bytes());
        cases.push(("version", b, want));
    }
    let mut b = good.clone();
    b[4..8].copy_from_slice(&3u32.to_be_bytes());
    cases.push(("big-endian", b, "version 50331648 (a big-endian file)"));
    cases.push((
        "truncated",
        good[..120].to_vec(),
        "past the end of the file",
    ));
    // The first key's length (at byte 24) far past the end.
    let mut b = good.clone();
    b[24..32].copy_from_slice(&999_999u64.to_le_bytes());
    cases.push(("string", b, "a metadata key of length 999999"));
    let mut ts = two();
    ts[1].offset = Some(4096);
    cases.push((
        "offset",
        gguf(&meta(), &ts),
        "tensor b lies at data bytes 4096..4128, past the end",
    ));
    let mut ts = two();
    ts[1].offset = Some(0);
    cases.push(("overlap", gguf(&meta(), &ts), "overlaps tensor a"));
    let mut ts = two();
    ts[1].offset = Some(36);
    cases.push((
        "aligned",
        gguf(&meta(), &ts),
        "tensor b has offset 36; allowed: a multiple of the alignment 32",
    ));
    let mut ts = two();
    ts[1].name = "a".into();
    cases.push(("duplicate", gguf(&meta(), &ts), "tensor a is named twice"));
    let mut ts = two();
    ts[1].ty = 99;
    cases.push((
        "type",
        gguf(&meta(), &ts),
        "tensor b has ggml type 99; allowed: F32 (0)",
    ));
    let mut ts = two();
    ts[1].dims = vec![1, 1, 1, 1, 8];
    cases.push((
        "n_dims",
        gguf(&meta(), &ts),
        "tensor b has n_dims 5; allowed: 1 to 4",
    ));
    let mut ts = two();
    ts[1].ty = 8;
    cases.push((
        "blocks",
        gguf(&meta(), &ts),
        "no whole number of Q8_0 blocks",
    ));
    for (name, bytes, want) in cases {
        let p = write(&dir, &format!("{name}.gguf"), &bytes);
        refused_in_one_line(&["trace", "--weights", &p], want);
        refused_in_one_line(&["params", "--config", &p], want);
    }
    // The good file parses: its refusal is the architecture, not its bytes.
    let p = write(&dir, "good.gguf", &good);
    refused_in_one_line(
        &["params", "--config", &p],
        "general.architecture is 'none'",
    );
}

/// A tensor a GGUF file lacks, or holds in a wrong shape, is named as
/// the file names it (`output_norm.weight`, `blk.0.ffn_norm.weight`),
/// never by the Hugging Face name the reader offers it under.
#[test]
fn a_missing_gguf_tensor_is_named_by_the_files_own_name() {
    let dir = tempfile::tempdir().unwrap();
    for drop in [
        "output_norm.weight",
        "blk.0.ffn_norm.weight",
        "blk.0.attn_k.weight",
    ] {
        let file = write(&dir, "lacks.gguf", &tiny_llama_without(0, 4 * 4096, drop));
        refused_in_one_line(
            &["trace", "--weights", &file, "--tokens", "1,2"],
            &format!("missing {drop} ("),
        );
        let (_, _, err) = cli(&["trace", "--weights", &file, "--tokens", "1,2"]);
        assert!(!err.contains("model."), "{err}");
    }
}
