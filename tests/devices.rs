//! A model split across devices (`--tp N`, `--sp`, `--pp M`, `--device k`):
//! each device's shapes, the communication steps, the `shard` check and
//! its faults, the per-device count, and a real distributed engine's local
//! shapes and outputs.
//!
//! tests/fixtures/hf-llama-tiny-tp/ was made by scripts/make_tp_fixture.py:
//! torch.distributed's DTensor tensor parallelism (`parallelize_module`,
//! `ColwiseParallel` for q, k, v, gate and up, `RowwiseParallel` for o and
//! down) over two CPU processes with gloo, on the tiny Llama fixture (4
//! heads, 2 K/V heads): each rank's local output and weight shapes and its
//! logits.

mod common;
use common::{cli, largest_delta, refused_in_one_line};
use ndarray::ArrayD;
use shapetrace::check::Status;
use shapetrace::config::{DType, Devices, Fault, preset};
use shapetrace::load::{Sources, resolve};
use shapetrace::ops::OpKind;
use shapetrace::{ModelConfig, Overlay, Request, Trace};
use std::path::Path;

const TINY: &str = "tests/fixtures/hf-llama-tiny";
const TP: &str = "tests/fixtures/hf-llama-tiny-tp";

fn split(name: &str, tp: usize, sp: bool) -> ModelConfig {
    ModelConfig {
        devices: Devices {
            tp,
            sp,
            ..Devices::default()
        },
        ..preset::by_name(name).unwrap()
    }
}

/// The trace's line for step `path`, as `trace` prints it.
fn line<'a>(out: &'a str, path: &str) -> &'a str {
    out.lines()
        .find(|l| l.split_whitespace().nth(1) == Some(path))
        .unwrap_or_else(|| panic!("no {path} in\n{out}"))
}

fn count(t: &Trace, op: OpKind, block: &str) -> usize {
    t.events
        .iter()
        .filter(|e| e.op == op && e.path.starts_with(block))
        .count()
}

#[test]
fn tp2_shows_one_devices_shapes_and_two_all_reduces_per_block() {
    let (code, out, err) = cli(&["trace", "--preset", "lesson", "--tp", "2"]);
    assert_eq!(code, Some(0), "{err}");
    for (path, shape) in [
        ("block1.attn.q_proj", "(B=2,T=4,d/2=32)"),
        ("block1.attn.q", "(B=2,h/2=2,T=4,hd=16)"),
        ("block1.attn.scores", "(B=2,h/2=2,Tq=4,Tk=4)"),
        ("block1.attn.merge", "(B=2,T=4,h/2·hd=32)"),
        ("block1.mlp.up", "(B=2,T=4,ff/2=128)"),
        ("block1.attn.out.all_reduce", "(B=2,T=4,d=64)"),
    ] {
        assert!(line(&out, path).contains(shape), "{}", line(&out, path));
    }
    let t = shapetrace::run(&split("lesson", 2, false)).unwrap().trace;
    for block in ["block1.", "block2."] {
        assert_eq!(count(&t, OpKind::AllReduce, block), 2, "{block}");
    }
    // Each all-reduce reads its layer's partial sum and adds the bias once.
    let ar = t.get("block1.attn.out.all_reduce").unwrap();
    assert_eq!(ar.inputs, ["block1.attn.out"]);
    assert!(
        ar.formula.starts_with("Σ over 2 devices + b"),
        "{}",
        ar.formula
    );
    // Each step's why says what a device holds of it.
    let why = |path: &str| t.get(path).unwrap().why.as_ref().unwrap().clone();
    for (path, key) in [
        ("block1.attn.q_proj", "why-linear-column"),
        ("block1.attn.q", "why-split"),
        ("block1.attn.out", "why-linear-partial"),
        ("block1.mlp.down", "why-linear-partial"),
        ("block1.mlp.up", "why-linear-column"),
        ("block1.attn.out.all_reduce", "why-all-reduce"),
    ] {
        assert_eq!(why(path).key, key, "{path}");
    }
    // A ring all-reduce of (2,4,64) f32 sends 2·(N−1)/N of its 2 KiB.
    assert!(why("block1.attn.out.all_reduce").text().contains("2.0 KiB"));
    // The residual add reads the reduced sum, not the partial one.
    let add = t.get("block1.resid_1").unwrap();
    assert_eq!(add.inputs[1], "block1.attn.out.all_reduce");
    // One device is no split: no communication, the same steps as before.
    let one = shapetrace::run(&split("lesson", 1, false)).unwrap().trace;
    assert!(one.events.iter().all(|e| e.op != OpKind::AllReduce));
    assert_eq!(one.events.len() + 4, t.events.len());
}

#[test]
fn sp_holds_the_stream_at_t_over_n_with_gathers_and_reduce_scatters() {
    let t = shapetrace::run(&split("lesson", 2, true)).unwrap().trace;
    for path in ["block1.ln_1", "block1.resid_1", "block2.resid_2"] {
        assert_eq!(t.get(path).unwrap().shape, [2, 2, 64], "{path}");
    }
    for (kind, n) in [(OpKind::AllGather, 2), (OpKind::ReduceScatter, 2)] {
        assert_eq!(count(&t, kind, "block1."), n, "{kind}");
    }
    assert_eq!(t.get("block1.attn.all_gather").unwrap().shape, [2, 4, 64]);
    assert_eq!(t.get("block1.mlp.up").unwrap().shape, [2, 4, 128]);
    assert_eq!(
        t.get("block1.mlp.down.reduce_scatter").unwrap().shape,
        [2, 2, 64]
    );
    // The model's output is gathered back to (B, T, d).
    assert_eq!(t.events.last().unwrap().path, "all_gather");
    assert_eq!(t.events.last().unwrap().shape, [2, 4, 64]);
}

#[test]
fn shard_passes_on_every_split_and_fails_under_each_fault_with_every_shape_passing() {
    for (tp, sp) in [(2, false), (4, false), (2, true), (4, true)] {
        let cfg = split("lesson", tp, sp);
        let checks = shapetrace::run(&cfg).unwrap().checks;
        for c in &checks {
            assert_eq!(c.status, Status::Pass, "tp {tp} sp {sp}: {c:?}");
        }
        assert!(
            checks
                .iter()
                .any(|c| c.name == shapetrace::CheckName::Shard)
        );
    }
    let faults = [
        (Fault::TpNoAllreduce, false, DType::F32),
        (Fault::SpScatterNoSum, true, DType::F32),
        // A 16-bit model is judged in f32: its rounding hides no share.
        (Fault::TpNoAllreduce, false, DType::BF16),
        (Fault::SpScatterNoSum, true, DType::F16),
    ];
    for (fault, sp, dtype) in faults {
        let cfg = ModelConfig {
            fault: Some(fault),
            dtype,
            ..split("lesson", 2, sp)
        };
        let checks = shapetrace::run(&cfg).unwrap().checks;
        let failed: Vec<String> = checks
            .iter()
            .filter(|c| c.status == Status::Fail)
            .map(|c| c.name.to_string())
            .collect();
        assert_eq!(failed, ["shard"], "{fault}: {checks:?}");
        let shard = checks.iter().find(|c| c.status == Status::Fail).unwrap();
        assert_eq!(shard.path.as_deref(), Some("block1.resid_1"), "{shard:?}");
    }
}

#[test]
fn a_split_that_does_not_divide_is_one_line_naming_the_field_and_every_allowed_tp() {
    for (args, want) in [
        (
            &["trace", "--tp", "3"][..],
            "heads 4 is not divisible by tp 3; allowed tp: 1, 2, 4",
        ),
        (
            &["trace", "--tp", "2", "--kv-heads", "1", "--d-ff", "255"][..],
            "d_ff 255 is not divisible by tp 2; allowed tp: 1",
        ),
        (
            &["trace", "--tp", "4", "--sp", "--seq", "6"][..],
            "seq 6; allowed: a multiple of tp 4 under --sp",
        ),
        (
            &["trace", "--tp", "3", "--sp", "--seq", "6"][..],
            "heads 4 is not divisible by tp 3; allowed tp: 1, 2",
        ),
        (
            &["trace", "--tp", "2", "--pos-emb", "alibi"][..],
            "tp 2; allowed: 1 with ALiBi positions",
        ),
        // What no split is modelled for comes first: no tp would do, so
        // none is offered that is then refused.
        (
            &["trace", "--preset", "lesson-moe", "--tp", "3"][..],
            "tp 3; allowed: 1 on a mixture of experts (split its experts with --ep N instead)",
        ),
        (
            &["trace", "--tp", "2", "--device", "2"][..],
            "device 2; allowed: 0..=1",
        ),
        (&["trace", "--sp"][..], "--sp with --tp 2 or more"),
        (
            &["trace", "--tp", "2", "--backward"][..],
            "tp 2; allowed: 1 with --backward",
        ),
    ] {
        refused_in_one_line(args, want);
    }
}

#[test]
fn fewer_kv_heads_than_devices_keep_one_whole_kv_head_each() {
    let cfg = ModelConfig {
        devices: Devices {
            tp: 4,
            sp: false,
            device: 3,
            ..Default::default()
        },
        attention: shapetrace::config::Attention {
            kv_heads: 2,
            ..preset::lesson().attention
        },
        ..preset::lesson()
    };
    let t = shapetrace::run(&cfg).unwrap().trace;
    // One query head of 4 per device; K/V head 2 of 2 on devices 2 and 3.
    assert_eq!(t.get("block1.attn.q").unwrap().shape, [2, 1, 4, 16]);
    assert_eq!(t.get("block1.attn.k").unwrap().shape, [2, 1, 4, 16]);
    assert!(t.get("block1.attn.k_rep").is_none());
    let checks = shapetrace::run(&cfg).unwrap().checks;
    assert!(
        checks.iter().all(|c| c.status == Status::Pass),
        "{checks:?}"
    );
}

#[test]
fn gpt2_small_at_tp4_holds_1_775_424_parameters_per_block_per_device() {
    // 50,257 tokens do not split four ways: padded to 50,260.
    let mut cfg = split("gpt2-small", 4, false);
    cfg.devices.pad_vocab = true;
    let b = shapetrace::Budget::of(&cfg).unwrap();
    assert_eq!(b.block.total, 1_775_424);
    assert_eq!(b.closed_total, b.total);
    // Column-parallel biases split; row-parallel biases and norms whole.
    let built = shapetrace::budget::count::built(&cfg);
    let shape = |name: &str| {
        built
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .shape
            .clone()
    };
    for (name, want) in [
        ("block1.attn.q_proj.weight", vec![768, 192]),
        ("block1.attn.q_proj.bias", vec![192]),
        ("block1.attn.out.weight", vec![192, 768]),
        ("block1.attn.out.bias", vec![768]),
        ("block1.mlp.up.bias", vec![768]),
        ("block1.mlp.down.weight", vec![768, 768]),
        ("block1.mlp.down.bias", vec![768]),
        ("block1.ln_1.weight", vec![768]),
        ("wte", vec![12_565, 768]),
    ] {
        assert_eq!(shape(name), want, "{name}");
    }
}

/// Each parameter's name and shape, as one device holds it.
type Shapes = Vec<(String, Vec<usize>)>;

/// Our device `k`'s run of the tiny Llama from its token ids, split in two.
fn llama_on(device: usize) -> (Trace, ArrayD<f32>, Shapes) {
    let flags = Overlay {
        tp: Some(2),
        device: Some(device),
        ..Overlay::default()
    };
    let src = Sources {
        weights: Some(Path::new(TINY).join("model.safetensors")),
        tokens: Some(format!("{TINY}/tokens.npy")),
        ..Sources::default()
    };
    let req = Request {
        keep_output: true,
        ..Request::default()
    };
    let (cfg, req) = resolve(&flags, &src, req).unwrap();
    let traced = shapetrace::trace_request(&cfg, &req).unwrap();
    assert!(traced.trace.failure.is_none(), "{:?}", traced.trace.failure);
    let params = shapetrace::budget::count::built(&cfg)
        .into_iter()
        .map(|p| (p.name, p.shape))
        .collect();
    (traced.trace, traced.output.unwrap(), params)
}

/// Our path for a Hugging Face Llama module's output: the all-reduced
/// sum for the row-parallel ones, as DTensor's module hook sees it.
fn ours(hf: &str) -> String {
    let layer: usize = hf.split('.').nth(2).unwrap().parse().unwrap();
    let module = hf.rsplit('.').next().unwrap();
    let ours = match module {
        "q_proj" | "k_proj" | "v_proj" => format!("attn.{module}"),
        "o_proj" => "attn.out.all_reduce".into(),
        "gate_proj" => "mlp.gate".into(),
        "up_proj" => "mlp.up".into(),
        "down_proj" => "mlp.down.all_reduce".into(),
        other => panic!("unexpected module {other}"),
    };
    format!("block{}.{ours}", layer + 1)
}

#[test]
fn dtensors_local_shapes_and_logits_equal_each_devices() {
    let text = std::fs::read_to_string(Path::new(TP).join("shapes.json")).unwrap();
    let fixture: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(fixture["world_size"], 2);
    let shape = |v: &serde_json::Value| -> Vec<usize> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|n| usize::try_from(n.as_u64().unwrap()).unwrap())
            .collect()
    };
    for rank in fixture["ranks"].as_array().unwrap() {
        let k = usize::try_from(rank["rank"].as_u64().unwrap()).unwrap();
        let (trace, logits, params) = llama_on(k);
        let outputs = rank["outputs"].as_object().unwrap();
        assert_eq!(outputs.len(), 14);
        for (hf, want) in outputs {
            let path = ours(hf);
            let got = &trace
                .get(&path)
                .unwrap_or_else(|| panic!("no {path}"))
                .shape;
            assert_eq!(got, &shape(want), "rank {k}: {hf} vs {path}");
        }
        // Every local weight, (out, in) in torch and (in, out) here; the
        // norms whole on both.
        let by_name: std::collections::HashMap<_, _> = params.into_iter().collect();
        let mut matrices = 0;
        for (hf, want) in rank["params"].as_object().unwrap() {
            let module = hf.trim_end_matches(".weight");
            if !module.starts_with("model.layers.") || module.ends_with("layernorm") {
                continue;
            }
            let ours = ours(module);
            let ours = format!("{}.weight", ours.trim_end_matches(".all_reduce"));
            let mut want = shape(want);
            want.reverse();
            let got = by_name.get(&ours).unwrap_or_else(|| panic!("no {ours}"));
            assert_eq!(got, &want, "rank {k}: {hf} vs {ours}");
            matrices += 1;
        }
        assert_eq!(matrices, 14);
        // The vocabulary split by rows on both: 48 of 96 each, the
        // embedding (V/2, d) on both, the head (V/2, d) there, (d, V/2) here.
        let params = &rank["params"];
        assert_eq!(fixture["ends"]["model.embed_tokens"], "rowwise");
        assert_eq!(fixture["ends"]["lm_head"], "colwise");
        assert_eq!(by_name["wte"], shape(&params["model.embed_tokens.weight"]));
        let mut head = shape(&params["lm_head.weight"]);
        head.reverse();
        assert_eq!(by_name["lm_head.weight"], head);
        assert_eq!(head, [64, 48]);
        let theirs =
            shapetrace::npy::read(&Path::new(TP).join(format!("logits-rank{k}.npy"))).unwrap();
        let delta = largest_delta(&logits, &theirs);
        assert!(delta < 1e-5, "rank {k}: |Δ| {delta}");
    }
}

#[test]
fn a_reduce_scatter_that_does_not_sum_keeps_its_own_devices_partial_sum() {
    // Without biases the cut is exactly this device's slice of its own
    // partial sum: its positions 2..4 on device 1.
    for device in [0, 1] {
        let cfg = ModelConfig {
            fault: Some(Fault::SpScatterNoSum),
            bias: false,
            devices: Devices {
                tp: 2,
                sp: true,
                device,
                ..Default::default()
            },
            ..preset::lesson()
        };
        let req = Request {
            values: true,
            ..Request::default()
        };
        let t = shapetrace::trace_request(&cfg, &req).unwrap().trace;
        let values = |path: &str| t.get(path).unwrap().values.clone().unwrap();
        let part = values("block1.attn.out"); // (2, 4, 64)
        let cut = values("block1.attn.out.reduce_scatter"); // (2, 2, 64)
        let own: Vec<f64> = (0..2)
            .flat_map(|b| {
                let from = (b * 4 + device * 2) * 64;
                part[from..from + 2 * 64].to_vec()
            })
            .collect();
        assert_eq!(cut, own, "device {device}");
    }
}

fn piped(name: &str, tp: usize, pp: usize, device: usize) -> ModelConfig {
    ModelConfig {
        devices: Devices {
            tp,
            pp,
            device,
            ..Devices::default()
        },
        ..preset::by_name(name).unwrap()
    }
}

#[test]
fn pp2_gives_each_stage_its_blocks_with_a_send_and_a_recv_between() {
    let first = shapetrace::run(&piped("lesson-lm", 1, 2, 0)).unwrap();
    let last = shapetrace::run(&piped("lesson-lm", 1, 2, 1)).unwrap();
    let paths = |t: &Trace| t.events.iter().map(|e| e.path.clone()).collect::<Vec<_>>();
    let (a, b) = (paths(&first.trace), paths(&last.trace));
    // Stage 1 embeds and runs block 1; stage 2 runs block 2 and the head.
    assert_eq!(a.first().map(String::as_str), Some("tokens"));
    assert!(a.iter().all(|p| !p.starts_with("block2.")), "{a:?}");
    assert_eq!(a.last().map(String::as_str), Some("send"));
    assert_eq!(b.first().map(String::as_str), Some("recv"));
    assert!(b.iter().all(|p| !p.starts_with("block1.")), "{b:?}");
    assert_eq!(b.last().map(String::as_str), Some("lm_head"));
    // What is sent is the stream, (B, T, d), and what arrives is it too.
    let send = first.trace.get("send").unwrap();
    assert_eq!(send.shape, [2, 4, 64]);
    assert_eq!(send.inputs, ["block1.resid_2"]);
    assert_eq!(last.trace.get("recv").unwrap().shape, [2, 4, 64]);
    assert_eq!(last.trace.get("block2.ln_1").unwrap().inputs, ["recv"]);
    for run in [&first, &last] {
        for c in &run.checks {
            assert_eq!(c.status, Status::Pass, "{c:?}");
        }
        assert!(
            run.checks
                .iter()
                .any(|c| c.name == shapetrace::CheckName::Shard)
        );
    }
    // Two stages of two tensor-parallel devices each: device 3 is stage 2's
    // second rank, its heads halved, its input received.
    let both = shapetrace::run(&piped("lesson", 2, 2, 3)).unwrap();
    assert_eq!(both.trace.events[0].path, "recv");
    assert_eq!(
        both.trace.get("block2.attn.q").unwrap().shape,
        [2, 2, 4, 16]
    );
    assert!(
        both.checks.iter().all(|c| c.status == Status::Pass),
        "{:?}",
        both.checks
    );
}

#[test]
fn a_stage_that_reads_its_buffer_before_the_recv_fails_shard_alone() {
    for (tp, device) in [(1, 0), (2, 0), (1, 1)] {
        let cfg = ModelConfig {
            fault: Some(Fault::PpRecvNoWait),
            ..piped("lesson", tp, 2, device)
        };
        let checks = shapetrace::run(&cfg).unwrap().checks;
        let failed: Vec<(String, Option<String>)> = checks
            .iter()
            .filter(|c| c.status == Status::Fail)
            .map(|c| (c.name.to_string(), c.path.clone()))
            .collect();
        assert_eq!(
            failed,
            [("shard".to_string(), Some("block2.ln_1".to_string()))],
            "tp {tp} device {device}: {checks:?}"
        );
    }
}

#[test]
fn a_pipeline_that_does_not_divide_the_blocks_is_one_line() {
    for (args, want) in [
        (
            &["trace", "--pp", "3"][..],
            "layers 2 is not divisible by pp 3; allowed pp: 1, 2",
        ),
        (
            &["params", "--micro-batches", "4"][..],
            "micro_batches 4; allowed: 1 without --pp",
        ),
        (
            &["trace", "--pp", "2", "--tp", "2", "--device", "4"][..],
            "device 4; allowed: 0..=3 (one of the --tp 2 × --pp 2 devices)",
        ),
        (
            &["trace", "--pp", "2", "--fault", "skip-block1"][..],
            "pp 2; allowed: 1 with a block that reads x0 across stages",
        ),
        (
            &["trace", "--pp", "2", "--decode", "1"][..],
            "pp 2; allowed: 1 with --decode",
        ),
    ] {
        refused_in_one_line(args, want);
    }
}

#[test]
fn each_stage_counts_its_own_blocks_and_ends_and_the_bubble_follows_the_micro_batches() {
    let whole = shapetrace::Budget::of(&preset::by_name("gpt2-small").unwrap()).unwrap();
    let stages: Vec<_> = (0..4)
        .map(|device| shapetrace::Budget::of(&piped("gpt2-small", 1, 4, device)).unwrap())
        .collect();
    for b in &stages {
        assert_eq!(b.closed_total, b.total);
        // Three blocks a stage, each the whole model's block.
        assert_eq!(b.block.total, whole.block.total);
    }
    let wte = 50_257 * 768;
    // The first stage holds wte and wpe, the last ln_f and a copy of the
    // tied wte (its head): the stages hold the model and one more wte.
    assert_eq!(
        stages.iter().map(|b| b.total).sum::<u64>(),
        whole.total + wte
    );
    assert_eq!(stages[1].total, 3 * whole.block.total);
    let cfg = ModelConfig {
        devices: Devices {
            micro_batches: 8,
            ..piped("gpt2-small", 1, 4, 0).devices
        },
        ..piped("gpt2-small", 1, 4, 0)
    };
    let split = shapetrace::Budget::of(&cfg).unwrap().devices.unwrap();
    assert_eq!(split.bubble, (3, 11));
    let (code, out, err) = cli(&[
        "params",
        "--preset",
        "lesson",
        "--pp",
        "2",
        "--micro-batches",
        "3",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("(2−1)/(3+2−1) = 1/4 = 25.0%"), "{out}");
    // Stage 1 of 2 keeps two micro-batches' activations under 1F1B.
    assert!(
        out.contains("min(M−s, m) = min(2−0, 3) = 2 micro-batches in flight"),
        "{out}"
    );
    // The first stage sends its (2,4,64) f32 stream whole: 2 KiB.
    assert!(
        out.lines()
            .any(|l| l.trim_start().starts_with("send") && l.contains("2.0 KiB")),
        "{out}"
    );
}

#[test]
fn the_vocabulary_is_split_by_rows_and_a_padded_one_drops_its_padding() {
    let t = shapetrace::run(&split("lesson-lm", 2, false)).unwrap();
    for c in &t.checks {
        assert_eq!(c.status, Status::Pass, "{c:?}");
    }
    let shape = |t: &Trace, path: &str| t.get(path).unwrap().shape.clone();
    let trace = &t.trace;
    // Each device looks up its 48 rows; the all-reduce sums the parts.
    assert_eq!(trace.get("tok_emb.part").unwrap().op, OpKind::Embedding);
    assert_eq!(trace.get("tok_emb").unwrap().op, OpKind::AllReduce);
    assert_eq!(shape(trace, "lm_head.part"), [2, 4, 48]);
    assert_eq!(trace.get("lm_head").unwrap().op, OpKind::AllGather);
    assert_eq!(shape(trace, "lm_head"), [2, 4, 96]);
    // 95 tokens over 4 devices: refused, or padded to 96 when asked.
    refused_in_one_line(
        &[
            "trace",
            "--preset",
            "lesson-lm",
            "--tp",
            "4",
            "--vocab",
            "95",
        ],
        "vocab 95; allowed: a multiple of tp 4, or --pad-vocab to pad it to 96 (1 row of zeros",
    );
    refused_in_one_line(
        &["trace", "--pad-vocab"],
        "pad_vocab true; allowed: --pad-vocab with --tp 2 or more",
    );
    for device in 0..4 {
        let mut cfg = split("lesson-lm", 4, false);
        cfg.vocab.size = Some(95);
        cfg.vocab.tied = device % 2 == 0;
        cfg.devices.pad_vocab = true;
        cfg.devices.device = device;
        let run = shapetrace::run(&cfg).unwrap();
        for c in &run.checks {
            assert_eq!(c.status, Status::Pass, "device {device}: {c:?}");
        }
        let t = &run.trace;
        assert_eq!(shape(t, "lm_head.part"), [2, 4, 24]);
        assert_eq!(shape(t, "lm_head.all_gather"), [2, 4, 96]);
        assert_eq!(shape(t, "lm_head"), [2, 4, 95]);
        let why = t.get("lm_head").unwrap().why.as_ref().unwrap();
        assert_eq!(why.key, "why-vocab-unpad");
        assert!(
            why.text().contains("padded with 1 row of zeros"),
            "{}",
            why.text()
        );
    }
    // The count: V'/N rows each, the padding named.
    let (code, out, err) = cli(&[
        "params",
        "--preset",
        "gpt2-small",
        "--tp",
        "4",
        "--pad-vocab",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains(
            "Vocabulary 50,257, padded to 50,260 (3 rows of zeros, --pad-vocab): 12,565 rows"
        ),
        "{out}"
    );
}

#[test]
fn a_later_stage_is_probed_and_wired_as_the_model_it_is_part_of() {
    // Block 2's window reaches back 2 positions of what block 1 already
    // spread: judged on the one-device model, that is causal.
    let mut cfg = piped("lesson", 1, 2, 1);
    cfg.attention.window = Some(2);
    let run = shapetrace::run(&cfg).unwrap();
    for c in &run.checks {
        assert_eq!(c.status, Status::Pass, "{c:?}");
    }
    let wiring = run
        .checks
        .iter()
        .find(|c| c.name == shapetrace::CheckName::Wiring)
        .unwrap();
    assert!(
        wiring
            .detail
            .contains("block2 reads what the stage before sent (recv)"),
        "{}",
        wiring.detail
    );
    // A stage of a deep pipeline is estimated as the stage it is.
    let deep = ModelConfig {
        layers: 16,
        ..piped("lesson", 1, 4, 0)
    };
    let held = shapetrace::plan::held::estimate(&deep).expect("an estimate for --pp 4");
    let whole = shapetrace::plan::held::estimate(&ModelConfig {
        layers: 16,
        ..preset::by_name("lesson").unwrap()
    })
    .unwrap();
    assert!(held.bytes < whole.bytes, "{held:?} vs {whole:?}");
}
