//! Roles, not names: every step carries what it is in the model (its
//! [`Role`]), the log keeps it (schema 4), and the checks judge by it. A
//! step renamed in the log is judged as before; a log without roles
//! (schema 3 and before) is given the roles the model would have given.

mod common;
use common::cli;
use serde_json::Value;
use shapetrace::check;
use shapetrace::trace::log::{self, Replay};
use shapetrace::trace::{Role, Status};

/// The JSON log of `shapetrace trace` with `args`.
fn log_of(args: &[&str]) -> String {
    let mut all = vec!["trace", "--format", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = cli(&all);
    assert_eq!(code, Some(0), "{args:?}: {err}");
    out
}

fn read(text: &str) -> Replay {
    log::read(text.as_bytes(), "t.jsonl").expect("the log reads")
}

/// The role of the event at `path`.
fn role_at(r: &Replay, path: &str) -> Role {
    r.trace
        .events
        .iter()
        .find(|e| e.path == path)
        .unwrap_or_else(|| panic!("no event {path}"))
        .role
}

/// Each line of `text` edited by `f` (events only), the header's schema
/// set to `schema`.
fn edit_lines(text: &str, schema: u64, f: impl Fn(&mut serde_json::Map<String, Value>)) -> String {
    text.lines()
        .map(|line| {
            let mut v: Value = serde_json::from_str(line).unwrap();
            let o = v.as_object_mut().unwrap();
            match o.get("kind").and_then(Value::as_str) {
                Some("header") => {
                    o.insert("schema".into(), schema.into());
                }
                Some("event") => f(o),
                _ => {}
            }
            v.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The log as schema 3 wrote it: no roles.
fn without_roles(text: &str) -> String {
    edit_lines(text, 3, |o| {
        o.remove("role");
    })
}

/// Every path in the log renamed: `attn` → `self_attention`, `scores` →
/// `s`, `weights` → `p`, `post_ln_` → `out_norm_`, `update` → `summed`,
/// `ln_` → `norm`, in paths and in the inputs that name them.
fn renamed(text: &str) -> String {
    let rename = |p: &str| {
        p.split('.')
            .map(|seg| match seg {
                "attn" => "self_attention".to_string(),
                "scores" => "s".to_string(),
                "weights" => "p".to_string(),
                "update" => "summed".to_string(),
                s if s.starts_with("post_ln_") => s.replacen("post_ln_", "out_norm_", 1),
                s if s.starts_with("ln_") => s.replacen("ln_", "norm", 1),
                s => s.to_string(),
            })
            .collect::<Vec<_>>()
            .join(".")
    };
    edit_lines(text, 4, |o| {
        let path = o["path"].as_str().unwrap().to_string();
        o.insert("path".into(), rename(&path).into());
        let inputs: Vec<Value> = o["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| rename(p.as_str().unwrap()).into())
            .collect();
        o.insert("inputs".into(), inputs.into());
    })
}

/// Each check's name and status, as `check --log` judges the log.
fn verdicts(text: &str) -> Vec<(String, Status)> {
    check::of_log(&read(text))
        .into_iter()
        .map(|c| (c.name.to_string(), c.status))
        .collect()
}

/// The model says what each step is where its op does not (which
/// projection, which norm); the rest follow from the op, and a step that
/// only moves or casts its input keeps the input's role.
#[test]
fn each_step_has_the_role_its_math_gives_it() {
    let lesson = read(&log_of(&[]));
    for (path, role) in [
        ("input", Role::Input),
        ("block1.ln_1", Role::Norm),
        ("block1.attn.q_proj", Role::Query),
        ("block1.attn.q", Role::Query),
        ("block1.attn.k", Role::Key),
        ("block1.attn.v_proj", Role::Value),
        ("block1.attn.scores", Role::Scores),
        ("block1.attn.weights", Role::Weights),
        ("block1.attn.context", Role::Context),
        ("block1.attn.merge", Role::MergedHeads),
        ("block1.attn.out", Role::AttnOut),
        ("block1.resid_1", Role::ResidualAdd),
        ("block1.mlp.up", Role::MlpHidden),
        ("block1.mlp.act", Role::MlpHidden),
        ("block1.mlp.down", Role::MlpOut),
        ("block2.resid_2", Role::ResidualAdd),
    ] {
        assert_eq!(role_at(&lesson, path), role, "{path}");
    }
    // 16-bit: the casts around the softmax and the norm are theirs.
    let bf16 = read(&log_of(&["--preset", "lesson-bf16"]));
    for (path, role) in [
        ("block1.ln_1.to_f32", Role::Norm),
        ("block1.ln_1.to_bf16", Role::Norm),
        ("block1.attn.scores.to_f32", Role::Scores),
        ("block1.attn.weights.to_bf16", Role::Weights),
    ] {
        assert_eq!(role_at(&bf16, path), role, "{path}");
    }
    let sandwich = read(&log_of(&["--preset", "lesson-sandwich"]));
    assert_eq!(role_at(&sandwich, "block1.post_ln_1"), Role::OutputNorm);
    let parallel = read(&log_of(&["--preset", "lesson-parallel"]));
    assert_eq!(role_at(&parallel, "block1.update"), Role::Update);
    let moe = read(&log_of(&["--preset", "lesson-moe"]));
    assert_eq!(role_at(&moe, "block1.moe.router"), Role::Router);
    assert_eq!(role_at(&moe, "block1.moe.combine"), Role::MlpOut);
    let lm = read(&log_of(&["--preset", "lesson-lm"]));
    assert_eq!(role_at(&lm, "tokens"), Role::Input);
    assert_eq!(role_at(&lm, "input"), Role::Embedding);
    assert_eq!(role_at(&lm, "lm_head"), Role::Logits);
}

/// A log written before roles (schema 3) is given, on reading, the very
/// roles the model records, step for step, on every kind of block.
#[test]
fn a_log_without_roles_reads_the_roles_the_model_gives() {
    for args in [
        &[][..],
        &["--preset", "lesson-bf16"],
        &["--preset", "lesson-sandwich"],
        &["--preset", "lesson-parallel"],
        &["--preset", "lesson-moe"],
        &["--preset", "lesson-lm"],
        &["--preset", "lesson-post-ln"],
        &["--preset", "lesson-encoder"],
        &["--preset", "lesson-gqa", "--act", "swiglu"],
        &["--fault", "no-out-proj"],
        &["--fault", "act-after-down"],
    ] {
        let text = log_of(args);
        let given = read(&text);
        let inferred = read(&without_roles(&text));
        for (a, b) in given.trace.events.iter().zip(&inferred.trace.events) {
            assert_eq!(a.role, b.role, "{args:?}: {}", a.path);
        }
        assert_eq!(given.trace.events.len(), inferred.trace.events.len());
    }
}

/// Renaming every step in a log changes no verdict: the checks read the
/// roles the log carries. The same log whose roles say otherwise (the
/// norms of a Post-LN block said to be no norms) is judged by them: its
/// stream is not a norm's output, and wiring fails, whatever the names say.
#[test]
fn renamed_steps_are_judged_as_before() {
    for args in [
        &["--preset", "lesson-sandwich"][..],
        &["--preset", "lesson-parallel"],
        &["--preset", "lesson-bf16"],
        &["--preset", "lesson-post-ln"],
    ] {
        let text = log_of(args);
        let before = verdicts(&text);
        assert!(
            before.iter().all(|(_, s)| *s != Status::Fail),
            "{args:?}: {before:?}"
        );
        let renamed = renamed(&text);
        assert_ne!(renamed, text);
        assert_eq!(verdicts(&renamed), before, "{args:?}");
    }
    let post = renamed(&log_of(&["--preset", "lesson-post-ln"]));
    let no_norms = edit_lines(&post, 4, |o| {
        if o["role"] == "norm" {
            o.insert("role".into(), "other".into());
        }
    });
    assert!(
        verdicts(&no_norms).contains(&("wiring".to_string(), Status::Fail)),
        "{:?}",
        verdicts(&no_norms)
    );
}

/// Another program's log without roles: its hand-written norms, its
/// scores (the products marked pre-mask), its softmax and its residual
/// adds are found from its ops and dataflow, as many as the model has.
#[test]
fn an_exported_log_is_given_its_roles_on_reading() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/exported/llama-tiny.jsonl"
    ))
    .unwrap();
    let r = read(&text);
    let layers = r.trace.config.layers;
    let count = |role: Role| r.trace.events.iter().filter(|e| e.role == role).count();
    let first = |role: Role| r.trace.events.iter().find(|e| e.role == role).unwrap();
    // Two RMSNorms a block and the final one.
    assert_eq!(count(Role::Norm), 2 * layers + 1);
    assert!(
        first(Role::Norm).path.contains("layernorm"),
        "{}",
        first(Role::Norm).path
    );
    assert_eq!(count(Role::ResidualAdd), 2 * layers);
    assert!(count(Role::Scores) >= layers);
    assert!(
        r.trace
            .events
            .iter()
            .filter(|e| e.role == Role::Scores)
            .all(|e| e.pre_mask)
    );
    assert!(first(Role::Weights).op_label().contains("softmax"));
}

/// The why of a residual add reads its update's role: a sandwich norm's
/// output is the sublayer's, normed, not a skipped sublayer; an update
/// straight from the block's input norm is (`mlp-returns-input`).
#[test]
fn an_add_of_a_sandwich_norm_is_no_skipped_sublayer() {
    let why_of_adds = |args: &[&str]| -> Vec<String> {
        read(&log_of(args))
            .trace
            .events
            .iter()
            .filter(|e| e.is_residual())
            .map(|e| e.why.as_ref().map_or(String::new(), |w| w.key.clone()))
            .collect()
    };
    let sandwich = why_of_adds(&["--preset", "lesson-sandwich"]);
    assert_eq!(sandwich.len(), 4);
    assert!(
        sandwich.iter().all(|k| k != "why-add-skips-sublayer"),
        "{sandwich:?}"
    );
    let skipped = why_of_adds(&["--fault", "mlp-returns-input"]);
    assert!(
        skipped.iter().any(|k| k == "why-add-skips-sublayer"),
        "{skipped:?}"
    );
}

/// Under a bare-reshape merge (`merge-no-transpose`) the merge is still
/// the merged heads: the step where that fault's leak starts.
#[test]
fn a_bare_reshape_merge_is_still_the_merged_heads() {
    let r = read(&log_of(&["--fault", "merge-no-transpose"]));
    assert_eq!(role_at(&r, "block1.attn.merge"), Role::MergedHeads);
    let old = read(&without_roles(&log_of(&["--fault", "merge-no-transpose"])));
    assert_eq!(role_at(&old, "block1.attn.merge"), Role::MergedHeads);
}
