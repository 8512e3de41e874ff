//! Checkpoints are mapped, not copied: an F32 checkpoint's weights are read
//! where they lie in the file's mapping (transposed and split by strides),
//! and a BF16 checkpoint's weights are widened to f32 only when an op reads
//! them, each once per forward.

use shapetrace::load::{Sources, resolve};
use shapetrace::model::{Model, Source};
use shapetrace::ops::numeric::{Numeric, Tensor};
use shapetrace::trace::recorder::{Recorder, Watch};
use shapetrace::{ModelConfig, Overlay, Request};
use std::path::Path;
use std::sync::Arc;

/// The config and the loaded weights of `weights`, with `heads` when the
/// file has no config.json beside it, under the default memory limit.
fn load(weights: &str, heads: Option<usize>) -> (ModelConfig, Arc<shapetrace::weights::Weights>) {
    let (cfg, req) = resolved(weights, heads, Request::default());
    (cfg, req.weights.unwrap())
}

/// The config and request `resolve` makes of `weights` under `req`.
fn resolved(weights: &str, heads: Option<usize>, req: Request) -> (ModelConfig, Request) {
    let src = Sources {
        weights: Some(Path::new(weights).to_path_buf()),
        ..Sources::default()
    };
    let flags = Overlay {
        heads,
        ..Overlay::default()
    };
    resolve(&flags, &src, req).unwrap()
}

/// The tiny BF16 Llama under a limit just too small for its weights in
/// f32: they are widened op by op.
fn streamed_bf16() -> (ModelConfig, Arc<shapetrace::weights::Weights>) {
    let dir = "tests/fixtures/hf-llama-tiny-bf16";
    let (cfg, _) = resolved(dir, None, Request::default());
    let limit = Request {
        max_memory: Some(cfg.numeric_bytes() - 1),
        ..Request::default()
    };
    let (cfg, req) = resolved(dir, None, limit);
    (cfg, req.weights.unwrap())
}

/// Runs the blocks of `model` on the seeded x0.
fn forward(cfg: &ModelConfig, b: &Numeric<f32>, model: &Model<Tensor<f32>>) {
    let mut rec = Recorder::new(b, cfg.stream_shape(), Watch::default());
    let x0 = shapetrace::model::input(cfg, b);
    model.forward(&mut rec, x0).unwrap();
}

#[test]
fn an_f32_checkpoint_is_read_in_place_transposed_and_split_by_strides() {
    let (cfg, w) = load("tests/fixtures/nanogpt-tiny.safetensors", Some(4));
    let b = Numeric::<f32>::new();
    let model = Model::build_from(&cfg, &b, Source::Loaded(&w));
    let mut seen = 0;
    for p in model.params() {
        let Tensor::Mapped(m) = &p.t else {
            panic!("{} was copied into an array", p.name);
        };
        let view = p.t.read();
        let at = view.as_ptr() as usize;
        assert!(
            m.mapping_range().contains(&at),
            "{} lies outside the mapping",
            p.name
        );
        assert_eq!(m.widened(), 0, "{}", p.name);
        seen += 1;
    }
    // 2 blocks of ln_1, q, k, v, out, ln_2, up, down (weights and biases)
    // and ln_f: every one in place.
    assert_eq!(seen, 2 * 16 + 2);
    // nanoGPT stores c_attn [3d, d]: q is its first d rows, read as (d, d)
    // columns of the transpose: strides, not a copy.
    let q = model
        .params()
        .into_iter()
        .find(|p| p.name == "block1.attn.q_proj.weight");
    let view = q.unwrap().t.read();
    assert_eq!(view.strides(), [1, 64]);
    forward(&cfg, &b, &model);
    assert!(
        model
            .params()
            .iter()
            .all(|p| p.t.mapped().unwrap().widened() == 0)
    );
}

#[test]
fn bf16_weights_are_widened_by_each_op_that_reads_them_once_per_forward() {
    let (cfg, w) = streamed_bf16();
    let b = Numeric::<f32>::new();
    let model = Model::build_from(&cfg, &b, Source::Loaded(&w));
    let widened = || -> Vec<(String, usize)> {
        model
            .params()
            .iter()
            .map(|p| {
                let m =
                    p.t.mapped()
                        .unwrap_or_else(|| panic!("{} is not mapped", p.name));
                (p.name.clone(), m.widened())
            })
            .collect()
    };
    // Built: nothing widened.
    assert!(widened().iter().all(|(_, n)| *n == 0), "{:?}", widened());
    forward(&cfg, &b, &model);
    // Run: each block's weights once, as its ops reached them.
    let after = widened();
    assert!(after.iter().all(|(_, n)| *n == 1), "{after:?}");
    assert!(after.len() > cfg.layers * 4, "{}", after.len());
    forward(&cfg, &b, &model);
    assert!(widened().iter().all(|(_, n)| *n == 2));
}

#[test]
fn bf16_weights_are_widened_once_and_kept_when_the_limit_holds_them_in_f32() {
    // The default limit (4 GiB) holds the tiny model's f32 weights.
    let (cfg, w) = load("tests/fixtures/hf-llama-tiny-bf16", None);
    let b = Numeric::<f32>::new();
    let model = Model::build_from(&cfg, &b, Source::Loaded(&w));
    let counts = || -> Vec<usize> {
        let ps = model.params();
        ps.iter().map(|p| p.t.mapped().unwrap().widened()).collect()
    };
    forward(&cfg, &b, &model);
    forward(&cfg, &b, &model);
    // Two forwards, each weight widened once: at its first read.
    assert!(counts().iter().all(|n| *n == 1), "{:?}", counts());
    // Kept row-major, as seeded weights are (the fast layout for gemm).
    for p in model.params() {
        let v = p.t.read();
        assert!(v.is_standard_layout(), "{} is read strided", p.name);
    }
    // The same numbers as the weights widened op by op.
    let (_, streamed) = streamed_bf16();
    let other = Model::build_from(&cfg, &b, Source::Loaded(&streamed));
    for (a, o) in model.params().iter().zip(other.params()) {
        assert_eq!(a.t, o.t, "{}", a.name);
    }
}

#[test]
fn a_misaligned_f32_tensor_alone_is_copied() {
    // An F16 tensor of 3 values (6 bytes) before an F32 one puts the F32
    // bytes off the 4-byte grid, whatever the header's length.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odd.safetensors");
    let a: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let h: Vec<u8> = [half::f16::from_f32(1.0); 3]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let header = r#"{"h":{"dtype":"F16","shape":[3],"data_offsets":[0,6]},"a":{"dtype":"F32","shape":[2,2],"data_offsets":[6,22]}}"#;
    let mut header = header.as_bytes().to_vec();
    while !(8 + header.len()).is_multiple_of(8) {
        header.push(b' ');
    }
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend(&header);
    bytes.extend(&h);
    bytes.extend(&a);
    std::fs::write(&path, bytes).unwrap();
    let file = shapetrace::weights::shards::Tensors::open(&path).unwrap();
    let (h, a) = (file.mapped("h").unwrap(), file.mapped("a").unwrap());
    assert!(!a.in_place() && !h.in_place());
    // Read all the same, transposed too.
    assert_eq!(a.widen().as_slice().unwrap(), [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(
        a.transposed().widen().as_slice().unwrap(),
        [1.0, 3.0, 2.0, 4.0]
    );
    // The numeric backend copies it once, when the model is built.
    let b = Numeric::<f32>::new();
    let a = file.mapped("a").unwrap();
    let t = shapetrace::ops::Backend::load(&b, &a);
    assert!(matches!(t, Tensor::Owned(_)) && a.widened() == 1);
}

#[test]
fn the_memory_estimate_counts_a_mapped_file_once_and_a_bf16_block_widened() {
    let estimate = |weights: &str, heads: Option<usize>| {
        let src = Sources {
            weights: Some(Path::new(weights).to_path_buf()),
            ..Sources::default()
        };
        let flags = Overlay {
            heads,
            ..Overlay::default()
        };
        let (cfg, req) = resolve(&flags, &src, Request::default()).unwrap();
        (cfg, req.weights_held)
    };
    // F32: the mapped tensors count as seeded f32 weights do, once.
    let (_, held) = estimate("tests/fixtures/nanogpt-tiny.safetensors", Some(4));
    assert_eq!(held, None);
    // BF16 under the default limit, which holds the model in f32: the
    // weights are widened once and kept, and count as f32.
    let (cfg, held) = estimate("tests/fixtures/hf-llama-tiny-bf16", None);
    assert_eq!(held, None);
    // Under a limit just too small for that: the file's 2 bytes a value,
    // and one block's 4 (or the tied embedding's, if wider), under the f32
    // weights' count.
    let limit = Request {
        max_memory: Some(cfg.numeric_bytes() - 1),
        ..Request::default()
    };
    let (_, req) = resolved("tests/fixtures/hf-llama-tiny-bf16", None, limit);
    let held = req.weights_held.unwrap();
    let file = u128::from(
        std::fs::metadata("tests/fixtures/hf-llama-tiny-bf16/model.safetensors")
            .unwrap()
            .len(),
    );
    assert!(
        held > file && held < 2 * file,
        "{held} against a {file}-byte file"
    );
    assert!(cfg.numeric_bytes_with(Some(held)) < cfg.numeric_bytes());
}

/// This process's resident bytes of the mapping that holds `at`, from
/// /proc/self/smaps (`Rss:` of the mapping's own line).
#[cfg(target_os = "linux")]
fn resident(at: usize) -> usize {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    let mut inside = false;
    for line in smaps.lines() {
        let range = line
            .split_whitespace()
            .next()
            .and_then(|r| r.split_once('-'));
        if let Some((lo, hi)) = range
            && let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
        {
            inside = (lo..hi).contains(&at);
        } else if inside && let Some(kb) = line.strip_prefix("Rss:") {
            let kb = kb.trim().trim_end_matches("kB").trim();
            return kb.parse::<usize>().unwrap() * 1024;
        }
    }
    panic!("no mapping holds {at:#x}");
}

/// A nanoGPT checkpoint of 2 blocks at d 256, d_ff 1024 (6.3 MB of f32,
/// every weight 0.01, every norm γ 1 and β 0) in `dir`: large beside the
/// 64 KB the kernel maps around each page fault.
#[cfg(target_os = "linux")]
fn wide_checkpoint(dir: &Path) -> std::path::PathBuf {
    use safetensors::tensor::{Dtype, TensorView};
    let (d, f) = (256usize, 1024usize);
    let mut shapes: Vec<(String, Vec<usize>, f32)> = vec![];
    for i in 0..2 {
        let h = format!("transformer.h.{i}");
        for (name, shape, v) in [
            ("ln_1.weight", vec![d], 1.0),
            ("ln_1.bias", vec![d], 0.0),
            ("attn.c_attn.weight", vec![3 * d, d], 0.01),
            ("attn.c_attn.bias", vec![3 * d], 0.0),
            ("attn.c_proj.weight", vec![d, d], 0.01),
            ("attn.c_proj.bias", vec![d], 0.0),
            ("ln_2.weight", vec![d], 1.0),
            ("ln_2.bias", vec![d], 0.0),
            ("mlp.c_fc.weight", vec![f, d], 0.01),
            ("mlp.c_fc.bias", vec![f], 0.0),
            ("mlp.c_proj.weight", vec![d, f], 0.01),
            ("mlp.c_proj.bias", vec![d], 0.0),
        ] {
            shapes.push((format!("{h}.{name}"), shape, v));
        }
    }
    shapes.push(("transformer.ln_f.weight".into(), vec![d], 1.0));
    shapes.push(("transformer.ln_f.bias".into(), vec![d], 0.0));
    let bytes: Vec<Vec<u8>> = shapes
        .iter()
        .map(|(_, shape, v)| {
            let n: usize = shape.iter().product();
            std::iter::repeat_n(v.to_le_bytes(), n).flatten().collect()
        })
        .collect();
    let views = shapes.iter().zip(&bytes).map(|((name, shape, _), b)| {
        (
            name.clone(),
            TensorView::new(Dtype::F32, shape.clone(), b).unwrap(),
        )
    });
    let path = dir.join("wide.safetensors");
    std::fs::write(&path, safetensors::serialize(views, None).unwrap()).unwrap();
    path
}

#[cfg(target_os = "linux")]
#[test]
fn a_forward_gives_back_the_pages_of_every_weight_it_has_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = wide_checkpoint(dir.path());
    let (cfg, w) = load(path.to_str().unwrap(), Some(4));
    let b = Numeric::<f32>::new();
    let model = Model::build_from(&cfg, &b, Source::Loaded(&w));
    let params = model.params();
    let at = params[0].t.mapped().unwrap().mapping_range().start;
    let file = std::fs::metadata(&path).unwrap().len() as usize;
    // Reading every weight makes the file resident: the measure sees it.
    let sum: f32 = params.iter().map(|p| p.t.read().sum()).sum();
    assert!(sum.is_finite());
    let read = resident(at);
    assert!(
        read > file * 9 / 10,
        "{read} resident of a {file}-byte file"
    );
    // A forward reads them all again and gives each back after its op:
    // what stays is the last ops' pages and the kernel's read-around.
    forward(&cfg, &b, &model);
    let after = resident(at);
    assert!(
        after < file / 10,
        "{after} bytes still resident of a {file}-byte file"
    );
    // Given back, not lost: the same values are read again.
    let again: f32 = params.iter().map(|p| p.t.read().sum()).sum();
    assert_eq!(sum.to_bits(), again.to_bits());
}
