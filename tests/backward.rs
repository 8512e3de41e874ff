//! The backward (`--backward`): the loss, then every gradient from the
//! head back to the embeddings, each of its tensor's shape; the `grads`
//! check against finite differences, and the faults only it catches.

mod common;
use common::cli;
use shapetrace::check::grads::{forward_part, grads, is_backward};
use shapetrace::check::influence::Subject;
use shapetrace::config::{Fault, preset};
use shapetrace::ops::OpKind;
use shapetrace::{ModelConfig, Trace};

fn with_backward(name: &str) -> ModelConfig {
    ModelConfig {
        backward: true,
        ..preset::by_name(name).unwrap()
    }
}

fn index(trace: &Trace, path: &str) -> usize {
    trace
        .events
        .iter()
        .position(|e| e.path == path)
        .unwrap_or_else(|| panic!("no step {path}"))
}

#[test]
fn the_lesson_lm_backward_runs_from_the_loss_back_to_the_embeddings() {
    let (code, out, err) = cli(&["trace", "--preset", "lesson-lm", "--backward"]);
    assert_eq!(code, Some(0), "{err}");
    for (path, shape) in [
        ("grad.block1.mlp.up.weight", "(d=64,ff=256)"),
        ("grad.block2.attn.scores", "(B=2,h=4,Tq=4,Tk=4)"),
        ("grad.wte", "(V=96,d=64)"),
    ] {
        let line = out
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(path))
            .unwrap_or_else(|| panic!("no {path} in\n{out}"));
        assert!(line.contains(shape), "{line}");
    }
    let run = shapetrace::run(&with_backward("lesson-lm")).unwrap();
    let t = &run.trace;
    // After the forward's last step: the loss, the head's gradient, then
    // block 2 before block 1, and wte last of all (its embedding read it first).
    let order = [
        "lm_head",
        "loss",
        "grad.lm_head",
        "grad.ln_f",
        "grad.block2.resid_2",
        "grad.block2.attn.scores",
        "grad.block1.mlp.up.weight",
        "grad.block1.attn.q_proj.weight",
        "grad.input",
        "grad.wte",
    ];
    let at: Vec<usize> = order.iter().map(|p| index(t, p)).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{order:?} at {at:?}");
    assert_eq!(t.events.last().unwrap().path, "grad.wte");
    // The loss is one number; the first gradient is dL/dlogits.
    assert!(t.get("loss").unwrap().shape.is_empty());
    let up = t.get("grad.block1.mlp.up.weight").unwrap();
    assert!(
        up.formula
            .contains("(64,8)·(8,256) → (64,256), summed over B·T = 8"),
        "{}",
        up.formula
    );
    // The tied wte sums both its readers' shares.
    let wte = t.get("grad.wte").unwrap();
    assert_eq!(wte.inputs, ["grad.lm_head", "grad.tok_emb"]);
}

#[test]
fn every_gradient_has_the_shape_of_what_it_differentiates() {
    for name in [
        "lesson",
        "lesson-lm",
        "lesson-gqa",
        "lesson-swiglu",
        "lesson-parallel",
    ] {
        let run = shapetrace::run(&with_backward(name)).unwrap();
        let t = &run.trace;
        let grads: Vec<_> = t.events.iter().filter(|e| e.op == OpKind::Grad).collect();
        assert!(!grads.is_empty(), "{name}");
        for g in &grads {
            let of = g.path.strip_prefix("grad.").unwrap();
            if let Some(step) = t.events.iter().find(|e| e.path == of) {
                assert_eq!(g.shape, step.shape, "{name}: {}", g.path);
                assert_eq!(g.axes, step.axes, "{name}: {}", g.path);
            }
        }
        let bad: Vec<_> = run.checks.iter().filter(|c| !c.ok).collect();
        assert!(bad.is_empty(), "{name}: {bad:?}");
        let verdict = run
            .checks
            .iter()
            .find(|c| c.name.as_str() == "grads")
            .unwrap();
        assert!(
            verdict.detail.contains("finite differences"),
            "{}",
            verdict.detail
        );
    }
}

#[test]
fn the_forward_checks_judge_the_forward_alone() {
    let run = shapetrace::run(&with_backward("lesson-lm")).unwrap();
    let plain = shapetrace::run(&preset::by_name("lesson-lm").unwrap()).unwrap();
    let forward = forward_part(&run.trace);
    assert!(!forward.events.iter().any(is_backward));
    assert_eq!(forward.events.len(), plain.trace.events.len());
    // Every forward verdict is the plain run's, word for word.
    for c in &plain.checks {
        let with = run.checks.iter().find(|r| r.name == c.name).unwrap();
        assert_eq!(with, c);
    }
}

#[test]
fn a_gradient_of_the_wrong_shape_fails_grads() {
    let cfg = with_backward("lesson-lm");
    let run = shapetrace::run(&cfg).unwrap();
    let subject = Subject::seeded(&cfg);
    assert!(grads(&run.trace, subject).ok);
    let mut bad = run.trace.clone();
    let e = bad
        .events
        .iter_mut()
        .find(|e| e.path == "grad.block1.mlp.up")
        .unwrap();
    e.shape = vec![2, 4, 64];
    let verdict = grads(&bad, subject);
    assert!(!verdict.ok);
    assert_eq!(verdict.path.as_deref(), Some("grad.block1.mlp.up"));
    assert!(verdict.detail.contains("(2,4,256)"), "{}", verdict.detail);
    // A parameter with no gradient fails too.
    let mut missing = run.trace.clone();
    missing
        .events
        .retain(|e| e.path != "grad.block2.mlp.down.bias");
    let verdict = grads(&missing, subject);
    assert!(!verdict.ok);
    assert!(verdict.detail.contains("no gradient"), "{}", verdict.detail);
}

#[test]
fn the_backward_faults_pass_every_shape_and_fail_grads_where_they_are() {
    for (fault, args, at) in [
        (Fault::GradTiedOnce, "lesson-lm", "grad.wte"),
        (Fault::SoftmaxGradNoSub, "lesson", "grad.block2.attn.scores"),
    ] {
        let cfg = ModelConfig {
            fault: Some(fault),
            ..with_backward(args)
        };
        let run = shapetrace::run(&cfg).unwrap();
        let failed: Vec<&str> = run
            .checks
            .iter()
            .filter(|c| !c.ok)
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(failed, ["grads"], "{fault}");
        let verdict = run.checks.iter().find(|c| !c.ok).unwrap();
        assert_eq!(
            verdict.path.as_deref(),
            Some(at),
            "{fault}: {}",
            verdict.detail
        );
        // Every gradient still has its tensor's shape.
        let plain = shapetrace::run(&ModelConfig {
            fault: None,
            ..cfg.clone()
        })
        .unwrap();
        let shapes = |t: &Trace| -> Vec<(String, Vec<usize>)> {
            t.events
                .iter()
                .map(|e| (e.path.clone(), e.shape.clone()))
                .collect()
        };
        assert_eq!(shapes(&run.trace), shapes(&plain.trace), "{fault}");
    }
}

#[test]
fn a_shape_only_backward_judges_shapes_and_says_the_values_were_not() {
    let (code, out, err) = cli(&["check", "--preset", "gpt2-xl", "--backward"]);
    assert_eq!(code, Some(0), "{err}");
    let line = out.lines().find(|l| l.contains(" grads ")).unwrap();
    assert!(line.contains("the values are not compared"), "{line}");
}

#[test]
fn backward_refuses_what_it_cannot_run_with_one_line_and_exit_2() {
    for (args, says) in [
        (
            vec!["--backward", "--decode", "2"],
            "--backward without --decode",
        ),
        (vec!["--preset", "lesson-moe", "--backward"], "dense MLP"),
        (
            vec!["--preset", "lesson-lm", "--seq", "1", "--backward"],
            "seq 1",
        ),
    ] {
        let mut all = vec!["trace"];
        all.extend(args.iter());
        let (code, out, err) = cli(&all);
        assert_eq!(code, Some(2), "{args:?}");
        assert!(out.is_empty());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{err}");
    }
}

#[test]
fn a_backward_log_replays_with_grads_left_to_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("lm.jsonl");
    let log = log.to_str().unwrap();
    let (code, _, err) = cli(&[
        "trace",
        "--preset",
        "lesson-lm",
        "--backward",
        "--format",
        "json",
        "--out",
        log,
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (code, out, err) = cli(&["check", "--log", log]);
    assert_eq!(code, Some(0), "{err}\n{out}");
    assert!(out.contains("grads"), "{out}");
    assert!(!out.contains('✗'), "{out}");
    // The log's own verdict is never believed: a gradient edited to the
    // wrong shape fails, whatever its summary and header say.
    let text = std::fs::read_to_string(log).unwrap();
    let from = r#""path":"grad.block2.mlp.up","op":"grad","role":"gradient","shape":[2,4,256]"#;
    assert!(text.contains(from));
    let bad = text
        .replace(from, &from.replace("[2,4,256]", "[2,4,64]"))
        .replace(r#""backward":true"#, r#""backward":false"#);
    let edited = dir.path().join("edited.jsonl");
    std::fs::write(&edited, bad).unwrap();
    let (code, out, _) = cli(&["check", "--log", edited.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{out}");
    let line = out.lines().find(|l| l.contains(" grads ")).unwrap();
    assert!(
        line.starts_with('✗') && line.contains("(2,4,256)"),
        "{line}"
    );
}

/// The tiny GPT-2's gradients as `--grads-out` writes them, with `extra`
/// flags, and transformers' own (scripts/make_grads_fixture.py).
fn grads_out_and_fixture(extra: &[&str]) -> (Vec<u8>, Vec<u8>) {
    let fixtures = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures"));
    let at = |f: &str| fixtures.join(f).to_str().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("grads.safetensors");
    let (weights, config, tokens) = (
        at("hf-gpt2-lm.safetensors"),
        at("hf-gpt2-lm-config.json"),
        at("hf-gpt2-lm-tokens.npy"),
    );
    let mut args = vec![
        "trace",
        "--weights",
        &weights,
        "--config",
        &config,
        "--tokens",
        &tokens,
        "--backward",
        "--grads-out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (code, _, err) = cli(&args);
    assert_eq!(code, Some(0), "{err}");
    let want = std::fs::read(fixtures.join("hf-gpt2-lm-grads.safetensors")).unwrap();
    (std::fs::read(&out).unwrap(), want)
}

/// transformers' own backward (`model(ids, labels=ids).loss.backward()`)
/// on the tiny GPT-2: `--grads-out` writes every gradient under the
/// checkpoint's names and Conv1D layout, and each matches to 1e-4 of its
/// largest value; the loss too.
#[test]
fn grads_out_matches_transformers_backward_tensor_for_tensor() {
    let (ours, want) = grads_out_and_fixture(&[]);
    let (ours_t, want_t) = (
        safetensors::SafeTensors::deserialize(&ours).unwrap(),
        safetensors::SafeTensors::deserialize(&want).unwrap(),
    );
    let f32s = |b: &[u8]| -> Vec<f32> {
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let mut names: Vec<String> = want_t.names().into_iter().map(str::to_string).collect();
    names.sort();
    let mut ours_names: Vec<String> = ours_t.names().into_iter().map(str::to_string).collect();
    ours_names.sort();
    assert_eq!(ours_names, names);
    assert_eq!(names.len(), 28);
    for name in &names {
        let (a, b) = (ours_t.tensor(name).unwrap(), want_t.tensor(name).unwrap());
        assert_eq!(a.shape(), b.shape(), "{name}");
        let (a, b) = (f32s(a.data()), f32s(b.data()));
        let largest = b.iter().fold(0f32, |m, v| m.max(v.abs()));
        let delta = a
            .iter()
            .zip(&b)
            .fold(0f32, |m, (x, y)| m.max((x - y).abs()));
        assert!(delta <= 1e-4 * largest, "{name}: |Δ| {delta} of {largest}");
    }
    let loss = |bytes: &[u8]| -> f64 {
        let (_, meta) = safetensors::SafeTensors::read_metadata(bytes).unwrap();
        meta.metadata().as_ref().unwrap()["loss"].parse().unwrap()
    };
    let (want_loss, ours_loss) = (loss(&want), loss(&ours));
    assert!(
        (want_loss - ours_loss).abs() < 1e-5 * want_loss,
        "{want_loss} vs {ours_loss}"
    );
}

/// The fixture can fail: with the head's share of wte left out, wte's
/// gradient no longer matches transformers'.
#[test]
fn grads_out_under_grad_tied_once_does_not_match_transformers() {
    let (ours, want) = grads_out_and_fixture(&["--fault", "grad-tied-once"]);
    let (a, b) = (
        safetensors::SafeTensors::deserialize(&ours).unwrap(),
        safetensors::SafeTensors::deserialize(&want).unwrap(),
    );
    let name = "transformer.wte.weight";
    assert_ne!(
        a.tensor(name).unwrap().data(),
        b.tensor(name).unwrap().data()
    );
    // The blocks' gradients are untouched by it.
    let block = "transformer.h.0.mlp.c_fc.weight";
    assert_eq!(
        a.tensor(block).unwrap().shape(),
        b.tensor(block).unwrap().shape()
    );
}

#[test]
fn grads_out_without_backward_or_on_shapes_only_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.safetensors");
    let out = out.to_str().unwrap();
    let (code, _, err) = cli(&["trace", "--preset", "lesson-lm", "--grads-out", out]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--grads-out with --backward"), "{err}");
    let (code, _, err) = cli(&[
        "trace",
        "--preset",
        "lesson-lm",
        "--backward",
        "--shape-only",
        "--grads-out",
        out,
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(!std::path::Path::new(out).exists());
}

/// What one training step holds, `params --training`: Adam's 8·N, the
/// gradients' 4·N, and the saved activations, which for one GPT-2-small
/// block written nanoGPT's way (f32, no dropout, B 1) equal what torch's
/// saved_tensors_hooks count (scripts/make_saved_tensors_fixture.py) at
/// every T measured: 64·sbh + 4·a·s²·b + 16·sb + s².
#[test]
fn the_training_ledger_counts_what_autograd_saves_for_a_gpt2_block() {
    let fixture: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/saved-tensors-gpt2-block.json"
        ))
        .unwrap(),
    )
    .unwrap();
    for (t, measured) in fixture["totals_by_T"].as_object().unwrap() {
        let measured = measured["total_bytes_unique_storages"].as_u64().unwrap();
        let (code, out, err) = cli(&[
            "params",
            "--preset",
            "gpt2-small",
            "--layers",
            "1",
            "--vocab",
            "0",
            "--batch",
            "1",
            "--seq",
            t,
            "--training",
            "--format",
            "json",
        ]);
        assert_eq!(code, Some(0), "{err}");
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        let tr = &json["training"];
        let block = tr["per_block"][0].as_u64().unwrap();
        // Within 5% is the bar; the rules give it to the byte.
        assert!(
            block.abs_diff(measured) * 20 <= measured,
            "T {t}: {block} vs {measured}"
        );
        assert_eq!(block, measured, "T {t}");
        let (s, h, a) = (t.parse::<u64>().unwrap(), 768u64, 12u64);
        assert_eq!(block, 64 * s * h + 4 * a * s * s + 16 * s + s * s, "T {t}");
        let n = tr["params"].as_u64().unwrap();
        assert_eq!(tr["optimizer_bytes"].as_u64().unwrap(), 8 * n);
        assert_eq!(tr["grads"].as_u64().unwrap(), 4 * n);
        // Every row names who keeps what; shared storages counted once.
        let rows = tr["saved"].as_array().unwrap();
        let scores: Vec<_> = rows
            .iter()
            .filter(|r| r["by"] == "block1.attn.scores")
            .collect();
        assert_eq!(scores.len(), 2, "q and k");
        let ctx = rows
            .iter()
            .find(|r| r["by"] == "block1.attn.context" && r["keeps"] == "block1.attn.weights")
            .unwrap();
        assert_eq!(ctx["bytes"], 0, "the softmax's output is counted once");
    }
}

#[test]
fn recomputation_and_sgd_change_what_the_step_holds() {
    let json = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "params",
            "--preset",
            "lesson-lm",
            "--training",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        let (code, out, err) = cli(&args);
        assert_eq!(code, Some(0), "{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["training"].clone()
    };
    let adam = json(&[]);
    let sgd = json(&["--optimizer", "sgd"]);
    assert_eq!(sgd["optimizer_bytes"], 0);
    assert!(adam["optimizer_bytes"].as_u64().unwrap() > 0);
    let full = json(&["--recompute", "full"]);
    assert!(full["activations"].as_u64().unwrap() < adam["activations"].as_u64().unwrap());
    // The T² term: doubling T more than doubles block 1's saved bytes.
    let long = json(&["--seq", "8"]);
    let (b4, b8) = (
        adam["per_block"][0].as_u64().unwrap(),
        long["per_block"][0].as_u64().unwrap(),
    );
    assert!(b8 > 2 * b4, "{b4} → {b8}");
    // --optimizer means nothing without --training.
    let (code, _, err) = cli(&["params", "--optimizer", "sgd"]);
    assert_eq!(code, Some(2), "{err}");
}

/// A model run with the backward: its budget counts the forward's
/// activations as without it, and holds the training step's memory,
/// which the Budget tab lists.
#[test]
fn the_budget_of_a_backward_run_holds_the_training_step() {
    use shapetrace::budget::Budget;
    use shapetrace::budget::training::{Optimizer, Recompute, training};
    let cfg = with_backward("lesson-lm");
    let plain = Budget::of(&preset::by_name("lesson-lm").unwrap()).unwrap();
    let with = Budget::of(&cfg).unwrap();
    assert_eq!(with.bytes, plain.bytes, "the forward's activations alone");
    assert!(plain.training.is_none());
    let t = with.training.as_ref().unwrap();
    assert_eq!(t, &training(&cfg, Optimizer::Adam, Recompute::None));
    assert_eq!(t.optimizer_bytes, 8 * t.params);
    assert_eq!(t.total, 2 * t.weights + t.optimizer_bytes + t.activations);
}
