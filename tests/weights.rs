//! Checkpoints and inputs: PyTorch's outputs reproduced from nanoGPT and
//! Hugging Face GPT-2 files (fixtures written by scripts/make_fixture.py),
//! and every kind of bad file refused by name.

mod common;
use ndarray::ArrayD;
use shapetrace::load::{Sources, resolve};
use shapetrace::{ModelConfig, Overlay, Request};
use std::path::{Path, PathBuf};

const FIX: &str = "tests/fixtures";

fn fix(name: &str) -> PathBuf {
    Path::new(FIX).join(name)
}

fn heads(n: usize) -> Overlay {
    Overlay {
        heads: Some(n),
        ..Overlay::default()
    }
}

fn sources(weights: &Path, input: Option<&Path>) -> Sources {
    Sources {
        weights: Some(weights.to_path_buf()),
        input: input.map(Path::to_path_buf),
        ..Sources::default()
    }
}

/// The final output of a numeric run from `weights` on the fixture input.
fn output(weights: &Path, flags: &Overlay) -> (ModelConfig, ArrayD<f32>) {
    let src = sources(weights, Some(&fix("nanogpt-tiny-input.npy")));
    let (cfg, mut req) = resolve(flags, &src, Request::default()).unwrap();
    req.keep_output = true;
    let t = shapetrace::trace_request(&cfg, &req).unwrap();
    assert!(t.trace.failure.is_none());
    (cfg, t.output.unwrap())
}

fn max_diff(a: &ArrayD<f32>, b: &ArrayD<f32>) -> f32 {
    common::largest_delta(a, b)
}

#[test]
fn nanogpt_checkpoint_matches_pytorch_to_1e_4() {
    let (cfg, out) = output(&fix("nanogpt-tiny.safetensors"), &heads(4));
    let want = shapetrace::npy::read(&fix("nanogpt-tiny-output.npy")).unwrap();
    assert!(max_diff(&out, &want) < 1e-4, "{}", max_diff(&out, &want));
    // Inferred from the shapes: the tiny model, B and T from the input.
    assert_eq!(
        (cfg.d_model, cfg.layers, cfg.mlp.d_ff, cfg.batch, cfg.seq),
        (64, 2, 256, 2, 4)
    );
    assert!(cfg.bias && cfg.norms.final_norm);
    assert_eq!((cfg.vocab.size, cfg.positions.context), (Some(16), Some(8)));
    assert_eq!(cfg.mlp.act, shapetrace::config::Act::Gelu);
}

#[test]
fn hugging_face_f16_checkpoint_matches_pytorch_to_1e_4() {
    let (cfg, out) = output(&fix("hf-gpt2-tiny.safetensors"), &heads(4));
    let want = shapetrace::npy::read(&fix("hf-gpt2-tiny-output.npy")).unwrap();
    assert!(max_diff(&out, &want) < 1e-4, "{}", max_diff(&out, &want));
    assert_eq!(cfg.mlp.act, shapetrace::config::Act::GeluTanh);
}

#[test]
fn seeded_weights_do_not_match_so_the_comparison_can_fail() {
    let src = Sources {
        input: Some(fix("nanogpt-tiny-input.npy")),
        ..Sources::default()
    };
    let flags = Overlay {
        final_norm: Some(true),
        ..Overlay::default()
    };
    let (cfg, mut req) = resolve(&flags, &src, Request::default()).unwrap();
    req.keep_output = true;
    let out = shapetrace::trace_request(&cfg, &req)
        .unwrap()
        .output
        .unwrap();
    let want = shapetrace::npy::read(&fix("nanogpt-tiny-output.npy")).unwrap();
    assert!(max_diff(&out, &want) > 0.1);
}

/// Writes a safetensors file whose tensor `name` has dtype and element
/// bytes `element(name)`, every element alike.
fn safetensors_as(
    path: &Path,
    tensors: &[(&str, &[usize])],
    element: impl Fn(&str) -> (&'static str, Vec<u8>),
) {
    let mut header = serde_json::Map::new();
    let mut data = Vec::new();
    for (name, shape) in tensors {
        let (dtype, one) = element(name);
        let n = shape.iter().product::<usize>();
        let at = data.len();
        data.extend(one.repeat(n));
        header.insert(
            (*name).into(),
            serde_json::json!({"dtype": dtype, "shape": shape, "data_offsets": [at, data.len()]}),
        );
    }
    let text = serde_json::to_vec(&header).unwrap();
    let mut bytes = (text.len() as u64).to_le_bytes().to_vec();
    bytes.extend(text);
    bytes.extend(data);
    std::fs::write(path, bytes).unwrap();
}

/// Zeros, F32 but for `f64_name`, F64.
fn safetensors_with(path: &Path, tensors: &[(&str, &[usize])], f64_name: &str) {
    safetensors_as(path, tensors, |name| {
        if name == f64_name {
            ("F64", vec![0; 8])
        } else {
            ("F32", vec![0; 4])
        }
    });
}

fn safetensors(path: &Path, tensors: &[(&str, &[usize])]) {
    safetensors_with(path, tensors, "");
}

/// Every tensor of a one-block nanoGPT checkpoint with d 64.
const ONE_BLOCK: [(&str, &[usize]); 11] = [
    ("transformer.h.0.ln_1.weight", &[64]),
    ("transformer.h.0.ln_1.bias", &[64]),
    ("transformer.h.0.attn.c_attn.weight", &[192, 64]),
    ("transformer.h.0.attn.c_attn.bias", &[192]),
    ("transformer.h.0.attn.c_proj.weight", &[64, 64]),
    ("transformer.h.0.attn.c_proj.bias", &[64]),
    ("transformer.h.0.ln_2.weight", &[64]),
    ("transformer.h.0.ln_2.bias", &[64]),
    ("transformer.h.0.mlp.c_fc.weight", &[256, 64]),
    ("transformer.h.0.mlp.c_fc.bias", &[256]),
    ("transformer.h.0.mlp.c_proj.weight", &[64, 256]),
];

fn load_error(path: &Path, flags: &Overlay) -> String {
    let e = resolve(flags, &sources(path, None), Request::default())
        .unwrap_err()
        .to_string();
    assert_eq!(e.lines().count(), 1, "{e}");
    e
}

#[test]
fn every_missing_unknown_or_misshaped_tensor_is_named_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.safetensors");
    let mut bad: Vec<(&str, &[usize])> = ONE_BLOCK.to_vec();
    bad[4].1 = &[64, 32];
    bad[10] = ("transformer.h.0.mlp.c_proj.bias", &[64]);
    bad.push(("transformer.h.0.mlp.gate.weight", &[3, 3]));
    safetensors(&path, &bad);
    let mut good = ONE_BLOCK.to_vec();
    good.push(("transformer.h.0.mlp.c_proj.bias", &[64]));
    safetensors(&dir.path().join("good.safetensors"), &good);
    let (cfg, req) = resolve(
        &heads(4),
        &sources(&dir.path().join("good.safetensors"), None),
        Request::default(),
    )
    .unwrap();
    assert_eq!((cfg.layers, req.weights.unwrap().len()), (1, 16)); // c_attn is split in 3
    let e = load_error(&path, &heads(4));
    for n in [
        "3 tensor problems",
        "transformer.h.0.attn.c_proj.weight: expected (64,64), found (64,32)",
        "missing transformer.h.0.mlp.c_proj.weight (64,256)",
        "unknown transformer.h.0.mlp.gate.weight (3,3)",
    ] {
        assert!(e.contains(n), "'{n}' not in: {e}");
    }
    // Against a config, a checkpoint of other sizes is named too.
    let fixture = fix("nanogpt-tiny.safetensors");
    let e = load_error(
        &fixture,
        &Overlay {
            preset: Some("lesson".into()),
            layers: Some(3),
            ..Overlay::default()
        },
    );
    assert!(
        e.contains("missing _orig_mod.transformer.h.2.ln_1.weight (64)"),
        "{e}"
    );
    // The line opens with what the file holds against what the model
    // wants, before the list; a file of the model's own sizes has no such
    // summary (the three problems above).
    let summary = "(the file holds 2 blocks of d_model 64, the model 3 of d_model 64; \
                   without --config and --preset the model is read off the file); 14 tensor problems";
    assert!(e.contains(summary), "{e}");
    assert!(!load_error(&path, &heads(4)).contains("the file holds"));
}

#[test]
fn corrupt_files_are_refused_before_anything_large_is_allocated() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read(fix("nanogpt-tiny.safetensors")).unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated", good[..good.len() - 100].to_vec(), "truncated"),
        (
            "short",
            vec![1, 2, 3],
            "shorter than the 8-byte header length",
        ),
        (
            "huge header",
            u64::MAX.to_le_bytes().to_vec(),
            "not a safetensors file",
        ),
        (
            "past the end",
            [&1000u64.to_le_bytes()[..], b"{}"].concat(),
            "a header of 1000 bytes, but the file has 10",
        ),
        (
            "not json",
            [&4u64.to_le_bytes()[..], b"nope"].concat(),
            "bad header",
        ),
        (
            "bad offsets",
            {
                let h = br#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}"#;
                [&(h.len() as u64).to_le_bytes()[..], h, &[0u8; 12]].concat()
            },
            "bad header",
        ),
    ];
    for (what, bytes, needle) in cases {
        let path = dir.path().join("x.safetensors");
        std::fs::write(&path, bytes).unwrap();
        let e = load_error(&path, &heads(4));
        assert!(e.contains(needle), "{what}: '{needle}' not in: {e}");
    }
    let e = load_error(&dir.path().join("absent.safetensors"), &heads(4));
    assert!(e.contains("cannot read"), "{e}");
    let mut f64s = ONE_BLOCK.to_vec();
    f64s.push(("transformer.h.0.mlp.c_proj.bias", &[64]));
    let path = dir.path().join("f64.safetensors");
    safetensors_with(&path, &f64s, "transformer.h.0.ln_2.bias");
    let e = load_error(&path, &heads(4));
    assert!(
        e.contains("ln_2.bias is F64; allowed dtypes: F32, F16, BF16"),
        "{e}"
    );
}

#[test]
fn heads_are_required_without_a_config() {
    let e = load_error(&fix("nanogpt-tiny.safetensors"), &Overlay::default());
    assert!(
        e.contains("needs --heads") && e.contains("1, 2, 4, 8, 16, 32, 64"),
        "{e}"
    );
}

fn npy(path: &Path, descr: &str, shape: &str, data: usize) {
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((header.len() as u16).to_le_bytes());
    bytes.extend(header.as_bytes());
    bytes.extend(vec![0u8; data]);
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn npy_inputs_of_the_wrong_dtype_shape_or_size_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.npy");
    let run = |p: &Path| {
        let src = Sources {
            input: Some(p.to_path_buf()),
            ..Sources::default()
        };
        resolve(&Overlay::default(), &src, Request::default())
            .and_then(|(c, r)| shapetrace::trace_request(&c, &r).map(|_| ()))
            .unwrap_err()
            .to_string()
    };
    npy(&p, "<f8", "(1, 2, 64)", 1024);
    assert!(run(&p).contains("'<f8'; allowed: '<f4'"), "{}", run(&p));
    npy(&p, "<f4", "(1, 2, 32)", 256);
    assert!(
        run(&p).contains("(1,2,32)") && run(&p).contains("d_model 64"),
        "{}",
        run(&p)
    );
    npy(&p, "<f4", "(2, 64)", 512);
    assert!(run(&p).contains("rank-3"), "{}", run(&p));
    npy(&p, "<f4", "(1, 2, 64)", 100);
    assert!(run(&p).contains("needs 512 data bytes"), "{}", run(&p));
    std::fs::write(&p, b"PK\x03\x04").unwrap();
    assert!(run(&p).contains("magic"), "{}", run(&p));
    // The writer's output reads back.
    let a = ArrayD::from_shape_fn(ndarray::IxDyn(&[2, 3, 5]), |i| {
        (i[0] * 15 + i[1] * 5 + i[2]) as f32
    });
    let mut bytes = Vec::new();
    shapetrace::npy::write(&mut bytes, &a).unwrap();
    std::fs::write(&p, bytes).unwrap();
    assert_eq!(shapetrace::npy::read(&p).unwrap(), a);
}

/// An input whose run is over the memory limit is refused from its header,
/// before its values are read: this one is a sparse file of 64 GiB, which
/// reading would not survive.
#[test]
fn an_input_over_the_memory_limit_is_refused_before_its_values_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("huge.npy");
    let t = 1usize << 20; // (1, 2^20, 2^14) f32: 64 GiB
    npy(&p, "<f4", &format!("(1, {t}, 16384)"), 0);
    let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
    f.set_len(f.metadata().unwrap().len() + (4u64 << 34))
        .unwrap();
    let flags = Overlay {
        d_model: Some(16384),
        heads: Some(128),
        context: Some(t),
        ..Overlay::default()
    };
    let src = Sources {
        input: Some(p.clone()),
        ..Sources::default()
    };
    let e = resolve(&flags, &src, Request::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("(--input)") && e.contains("over the --max-memory limit"),
        "{e}"
    );
}

#[test]
fn weights_and_inputs_require_numbers() {
    let xl = Overlay {
        preset: Some("gpt2-xl".into()),
        ..Overlay::default()
    };
    let e = load_error(&fix("nanogpt-tiny.safetensors"), &xl);
    assert!(
        e.contains("(--weights)") && e.contains("8.8 GiB") && e.contains("4.0 GiB"),
        "{e}"
    );
    let shape_only = Request {
        mode: shapetrace::ModeChoice::ShapeOnly,
        ..Request::default()
    };
    let src = Sources {
        input: Some(fix("nanogpt-tiny-input.npy")),
        ..Sources::default()
    };
    let (cfg, mut req) = resolve(&Overlay::default(), &src, Request::default()).unwrap();
    req.mode = shape_only.mode;
    let e = shapetrace::trace_request(&cfg, &req)
        .unwrap_err()
        .to_string();
    assert!(e.contains("--shape-only conflicts with --input"), "{e}");
}

#[test]
fn bf16_and_f16_tensors_read_as_f32() {
    let dir = tempfile::tempdir().unwrap();
    let mut all = ONE_BLOCK.to_vec();
    all.push(("transformer.h.0.mlp.c_proj.bias", &[64]));
    // 1.5 is 0x3FC0 in bfloat16 and 0x3E00 in float16; -2 is 0xC000 in both.
    for (dtype, one_and_half, minus_two) in
        [("BF16", 0x3FC0u16, 0xC000u16), ("F16", 0x3E00, 0xC000)]
    {
        let path = dir.path().join(format!("{dtype}.safetensors"));
        safetensors_as(&path, &all, |name| {
            let v = if name.ends_with("ln_1.weight") {
                one_and_half
            } else {
                minus_two
            };
            (dtype, v.to_le_bytes().to_vec())
        });
        let (_, req) = resolve(&heads(4), &sources(&path, None), Request::default()).unwrap();
        let w = req.weights.unwrap();
        let ln = w.get("block1.ln_1.weight", &[64]).unwrap().widen();
        assert!(ln.iter().all(|&v| v == 1.5), "{dtype}");
        let q = w
            .get("block1.attn.q_proj.weight", &[64, 64])
            .unwrap()
            .widen();
        assert!(q.iter().all(|&v| v == -2.0), "{dtype}");
    }
}

#[test]
fn probes_move_the_loaded_model_not_the_seeded_one() {
    use shapetrace::check::influence::{Kind, Subject, influence};
    let src = sources(
        &fix("nanogpt-tiny.safetensors"),
        Some(&fix("nanogpt-tiny-input.npy")),
    );
    let (cfg, req) = resolve(&heads(4), &src, Request::default()).unwrap();
    let deltas = |s: Subject| -> Vec<Vec<f64>> {
        let runs = influence(s, Kind::Causality, &[1]).unwrap();
        runs[0].rows.iter().map(|r| r.delta.clone()).collect()
    };
    let loaded = deltas(Subject::of(&cfg, &req));
    let seeded = deltas(Subject::seeded(&cfg));
    assert_eq!(loaded.len(), seeded.len());
    assert_ne!(loaded, seeded, "the probe ran the checkpoint");
    // Loaded weights alone (seeded input) differ again.
    let weights_only = Subject::new(&cfg, req.weights.as_deref(), None);
    assert_ne!(deltas(weights_only), loaded);
}

/// A model read off a checkpoint's shapes says what it took on trust: the
/// GELU form its naming suggests, ε and Pre-LN, and the heads given; a
/// flag that sets one takes it off the list, and a config says nothing.
#[test]
fn a_model_read_off_shapes_notes_every_guess_and_a_config_none() {
    let notes = |weights: &str, flags: &Overlay| {
        let src = sources(&fix(weights), None);
        let (_, req) = resolve(flags, &src, Request::default()).unwrap();
        req.notes
    };
    let nano = notes("nanogpt-tiny.safetensors", &heads(4));
    assert_eq!(nano.len(), 1, "{nano:?}");
    for part in [
        "read off its shapes",
        "act gelu (nanoGPT",
        "ε 1e-5",
        "Pre-LN",
        "heads 4",
    ] {
        assert!(nano[0].contains(part), "{part}: {}", nano[0]);
    }
    let hf = notes("hf-gpt2-tiny.safetensors", &heads(4));
    assert!(hf[0].contains("act gelu-tanh (Hugging Face"), "{}", hf[0]);
    let set = Overlay {
        act: Some(shapetrace::config::Act::GeluTanh),
        ..heads(4)
    };
    assert!(!notes("nanogpt-tiny.safetensors", &set)[0].contains("act "));
    let with_config = Sources {
        config: Some(fix("hf-llama-tiny/config.json")),
        ..sources(&fix("hf-llama-tiny/model.safetensors"), None)
    };
    let (_, req) = resolve(&Overlay::default(), &with_config, Request::default()).unwrap();
    assert!(req.notes.is_empty(), "{:?}", req.notes);
}
