//! `shapetrace compare` with a trace log on a side: our trace of a
//! config.json against the exporter's trace of the transformers model
//! itself, paired step by step by role.
//!
//! tests/fixtures/exported/llama-tiny.jsonl was made, from the repository's
//! root, by
//!
//! ```sh
//! .venv/bin/python scripts/shapetrace_export.py --hf tests/fixtures/hf-llama-tiny --tokens 2,5 \
//!     --out tests/fixtures/exported/llama-tiny.jsonl
//! ```
//!
//! (shapetrace_export 1, torch 2.15.0, transformers 5.24.0; the folder's
//! model.safetensors, so the same weights every time).

mod common;
use serde_json::Value;

const CONFIG: &str = "tests/fixtures/hf-llama-tiny/config.json";
const LOG: &str = "tests/fixtures/exported/llama-tiny.jsonl";

/// `compare ARGS --format json`: the comparison and stderr.
fn compare_json(args: &[&str]) -> (Value, String) {
    let mut all = vec!["compare"];
    all.extend_from_slice(args);
    all.extend(["--format", "json"]);
    let (code, out, err) = common::cli(&all);
    assert_eq!(code, Some(0), "{err}");
    (serde_json::from_str(&out).unwrap(), err)
}

fn steps(c: &Value) -> &Vec<Value> {
    c["steps"].as_array().unwrap()
}

/// The row of the left side's step `path`.
fn left<'a>(c: &'a Value, path: &str) -> &'a Value {
    steps(c)
        .iter()
        .find(|s| s["left"]["path"] == path)
        .unwrap_or_else(|| panic!("no left {path}"))
}

/// The row of the right side's step `path`.
fn right<'a>(c: &'a Value, path: &str) -> &'a Value {
    steps(c)
        .iter()
        .find(|s| s["right"]["path"] == path)
        .unwrap_or_else(|| panic!("no right {path}"))
}

/// The right side's path paired with the left side's `path` (null when
/// the left step is alone).
fn paired<'a>(c: &'a Value, path: &str) -> &'a Value {
    &left(c, path)["right"]["path"]
}

/// Every step of both sides is on exactly one row.
fn each_step_once(c: &Value) {
    for side in ["left", "right"] {
        let mut seen: Vec<u64> = steps(c)
            .iter()
            .filter_map(|s| s[side]["step"].as_u64())
            .collect();
        seen.sort_unstable();
        let n = seen.len() as u64;
        assert_eq!(seen, (0..n).collect::<Vec<_>>(), "{side}");
    }
}

/// The student's view: ours `block1.attn.q_proj` is the real code's
/// `self.q_proj`, our scores its `q @ k.T` (the matmul before the scale and
/// the mask), our weights its softmax, our merge its `reshape`, both
/// residual adds its `residual + hidden_states`; the exporter's small
/// steps (the RMSNorm's pow and rsqrt, rotary's neg and cat, the mask's
/// where) are its own rows.
#[test]
fn our_trace_of_the_config_and_the_exported_model_pair_by_role() {
    let (c, _) = compare_json(&[CONFIG, LOG]);
    assert_eq!(c["aligned_by"], "role");
    each_step_once(&c);
    for b in ["block1", "block2"] {
        for (ours, theirs, role) in [
            ("ln_1", "input_layernorm.mul_2", "norm"),
            ("attn.q_proj", "self_attn.q_proj.linear", "linear"),
            ("attn.k_proj", "self_attn.k_proj.linear", "linear"),
            ("attn.v_proj", "self_attn.v_proj.linear", "linear"),
            ("attn.q_rot", "self_attn.add_op", "sum"),
            ("attn.k_rep", "self_attn.reshape", "layout"),
            ("attn.scores", "self_attn.matmul", "scores"),
            ("attn.weights", "self_attn.softmax", "softmax"),
            ("attn.context", "self_attn.matmul_2", "attend"),
            ("attn.merge", "self_attn.reshape_3", "layout"),
            ("attn.out", "self_attn.o_proj.linear", "linear"),
            ("resid_1", "resid_1", "residual"),
            ("ln_2", "post_attention_layernorm.mul_2", "norm"),
            ("mlp.gate", "mlp.gate_proj.linear", "linear"),
            ("mlp.up", "mlp.up_proj.linear", "linear"),
            ("mlp.act", "mlp.mul", "product"),
            ("mlp.down", "mlp.down_proj.linear", "linear"),
            ("resid_2", "resid_2", "residual"),
        ] {
            let row = left(&c, &format!("{b}.{ours}"));
            assert_eq!(row["right"]["path"], format!("{b}.{theirs}"), "{b}.{ours}");
            assert_eq!(row["role"], role, "{b}.{ours}");
            assert_eq!(row["status"], "same", "{b}.{ours}");
        }
        // Made right after q_proj in the real code, after all three
        // projections in ours: the same step, moved.
        let q = left(&c, &format!("{b}.attn.q"));
        assert_eq!(q["right"]["path"], format!("{b}.self_attn.transpose"));
        assert_eq!(q["changes"], serde_json::json!(["position"]));
        for small in [
            "input_layernorm.pow",
            "input_layernorm.rsqrt",
            "self_attn.neg",
            "self_attn.cat",
            "self_attn.mul_5",
            "mlp.act_fn.silu",
        ] {
            let row = right(&c, &format!("{b}.{small}"));
            assert_eq!(row["status"], "only-right", "{b}.{small}");
        }
    }
    assert_eq!(paired(&c, "tokens"), "input");
    assert_eq!(paired(&c, "ln_f"), "model.norm.mul_2");
    assert_eq!(paired(&c, "lm_head"), "lm_head.linear");
    assert_eq!(right(&c, "model.where")["status"], "only-right");
    assert_eq!(c["summary"]["only_left"], 0, "every step of ours is paired");
    // A log holds no model: its counts are unknown, not made up.
    for k in c["counts"].as_array().unwrap() {
        assert!(k["left"].is_u64(), "{k}");
        assert!(k["right"].is_null(), "{k}");
        assert!(k["delta"].is_null(), "{k}");
        assert!(
            k["right_formula"]
                .as_str()
                .unwrap()
                .contains("not in a log")
        );
    }
    assert_eq!(c["counts"][0]["left"], 86_336);
}

/// The shape is in the key: a model whose MLP is 96 wide, not 128, has
/// gate and up projections the log's do not pair with, while the
/// attention and the down projection (back to d) still pair.
#[test]
fn a_projection_of_another_width_does_not_pair() {
    let (c, _) = compare_json(&[CONFIG, LOG, "--d-ff", "96"]);
    each_step_once(&c);
    for ours in ["block1.mlp.gate", "block1.mlp.up", "block1.mlp.act"] {
        assert_eq!(left(&c, ours)["status"], "only-left", "{ours}");
    }
    for theirs in ["block1.mlp.gate_proj.linear", "block1.mlp.up_proj.linear"] {
        assert_eq!(right(&c, theirs)["status"], "only-right", "{theirs}");
    }
    assert_eq!(paired(&c, "block1.mlp.down"), "block1.mlp.down_proj.linear");
    assert_eq!(
        paired(&c, "block1.attn.q_proj"),
        "block1.self_attn.q_proj.linear"
    );
    assert_eq!(paired(&c, "block1.resid_2"), "block1.resid_2");
}

/// Without --batch and --seq the model runs the log's B and T, and says
/// so; given another T, the steps still pair by role and each pair is
/// marked as changed in its shape.
#[test]
fn the_model_runs_the_logs_batch_and_length_unless_told() {
    let (c, err) = compare_json(&[CONFIG, LOG]);
    assert!(err.contains("B=2, T=5, as the log RIGHT ran"), "{err}");
    assert_eq!(
        left(&c, "block1.resid_1")["left"]["shape"],
        serde_json::json!([2, 5, 64])
    );
    let (c, err) = compare_json(&[CONFIG, LOG, "--seq", "4"]);
    assert!(!err.contains("T=5"), "{err}");
    let scores = left(&c, "block1.attn.scores");
    assert_eq!(scores["right"]["path"], "block1.self_attn.matmul");
    assert_eq!(scores["left"]["shape"], serde_json::json!([2, 4, 4, 4]));
    assert_eq!(scores["right"]["shape"], serde_json::json!([2, 4, 5, 5]));
    assert_eq!(scores["changes"], serde_json::json!(["shape"]));
    assert_eq!(paired(&c, "block1.resid_1"), "block1.resid_1");
}

/// Two traces of one program still pair by path, their inputs and places
/// compared (tests/compare.rs pins it for two models): a model against
/// shapetrace's own log of another.
#[test]
fn a_log_of_ours_pairs_by_path() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("post.jsonl");
    let (code, _, err) = common::cli(&[
        "trace",
        "--preset",
        "lesson-post-ln",
        "--format",
        "json",
        "--out",
        log.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (c, _) = compare_json(&["lesson", log.to_str().unwrap()]);
    assert_eq!(c["aligned_by"], "path");
    let ln = steps(&c)
        .iter()
        .find(|s| s["path"] == "block1.ln_1")
        .unwrap();
    assert!(ln.get("role").is_none());
    assert_eq!(ln["changes"], serde_json::json!(["inputs", "position"]));
    assert!(c["counts"][0]["right"].is_null());
    // The exported log against itself: one producer, by path, all same.
    let (c, _) = compare_json(&[LOG, LOG]);
    assert_eq!(c["aligned_by"], "path");
    assert_eq!(c["summary"]["same"], 159);
}

/// A side is a log by its `.jsonl` name or by a first line that is a
/// log's header; a `.jsonl` whose first line is no header is refused in
/// one line, exit 2, naming the side and the line.
#[test]
fn a_log_is_told_by_its_name_or_header_and_a_bad_one_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "not a header\n").unwrap();
    let (code, out, err) = common::cli(&["compare", CONFIG, bad.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(out.is_empty());
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("compare RIGHT") && err.contains("bad.jsonl:1"),
        "{err}"
    );
    // A first line that is a header, whatever the name: a log.
    let renamed = dir.path().join("exported.txt");
    std::fs::copy(LOG, &renamed).unwrap();
    let (c, _) = compare_json(&[CONFIG, renamed.to_str().unwrap()]);
    assert_eq!(c["aligned_by"], "role");
    // Neither a header nor .jsonl: a model file, refused as one.
    let toml = dir.path().join("bad.txt");
    std::fs::write(&toml, "not a header\n").unwrap();
    let (code, _, err) = common::cli(&["compare", CONFIG, toml.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    // TOML's complaint, not the log reader's.
    assert!(err.contains("expected `=`"), "{err}");
}

/// Two logs are compared as written: a model flag has nothing to apply to
/// and is refused naming it; HTML, which draws each side's model, is
/// refused with a log side.
#[test]
fn flags_that_cannot_apply_to_a_log_are_refused_in_one_line() {
    let (code, _, err) = common::cli(&["compare", LOG, LOG, "--seq", "4"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("--seq does not apply"), "{err}");
    let (code, _, err) = common::cli(&["compare", CONFIG, LOG, "--format", "html"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("--format html"), "{err}");
    // The text formats name both paths of a pair.
    let (code, out, err) = common::cli(&["compare", CONFIG, LOG]);
    assert_eq!(code, Some(0), "{err}");
    let line = out
        .lines()
        .find(|l| l.contains("block1.attn.scores"))
        .unwrap();
    assert!(line.contains("block1.self_attn.matmul"), "{line}");
    assert!(out.lines().next().unwrap().contains("paired by role"));
    let (code, out, _) = common::cli(&["compare", CONFIG, LOG, "--format", "markdown"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("| scores | block1.attn.scores |"), "{out}");
}
