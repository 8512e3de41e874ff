//! Students' own PyTorch blocks, exported by `scripts/shapetrace_export.py`
//! (the modules are in `scripts/students/`, their logs committed in
//! `tests/fixtures/students/`; no Python is needed here): the correct ones
//! pass `check --log`, each lesson mistake fails with its check named, and
//! `view` steps through them with whys from each step's kind.

mod common;
use common::cli;

const DIR: &str = "tests/fixtures/students";

/// Whether a fixture holds evidence lines: the exporter writes what its
/// probes saw rather than verdicts (a log with none has its probes skipped,
/// `tests/log_evidence.rs`). Every committed fixture is exported with them.
fn has_evidence(name: &str) -> bool {
    let text = std::fs::read_to_string(format!("{DIR}/{name}.jsonl")).unwrap();
    text.lines()
        .any(|l| l.starts_with("{\"kind\":\"evidence\""))
}

/// `check --log` on one fixture: exit code and the report.
fn check(name: &str) -> (Option<i32>, String) {
    let path = format!("{DIR}/{name}.jsonl");
    let (code, out, err) = cli(&["check", "--log", &path]);
    (code, format!("{out}{err}"))
}

#[test]
fn correct_student_blocks_pass_every_check_in_their_logs() {
    for name in ["nanogpt_style", "einsum_style"] {
        let (code, out) = check(name);
        assert_eq!(code, Some(0), "{name}: {out}");
        let contract = [
            "op-shapes",
            "residual",
            "stream",
            "returns",
            "wiring",
            "finite",
        ];
        for c in contract {
            assert!(
                out.contains(&format!("✓ {c} ")),
                "{name}: {c} does not pass: {out}"
            );
        }
        assert!(
            has_evidence(name),
            "{name}: export it again (see its module's header)"
        );
        for c in ["positionwise", "causality"] {
            assert!(out.contains(&format!("✓ {c} ")), "{name}: {c}: {out}");
        }
        // The checks that need the model are not in a student's log.
        assert!(
            out.contains("– params") && out.contains("– reference"),
            "{out}"
        );
        assert!(out.contains("4/4 residual adds"), "{name}: {out}");
    }
}

#[test]
fn each_lesson_mistake_fails_with_its_check_named() {
    for (name, check_name, path) in [
        ("mlp_no_down", "residual", "block1.resid_2"),
        ("merge_bare_reshape", "causality", ""),
        ("no_causal_mask", "causality", ""),
        ("ln_after_add", "wiring", "block1.resid_2"),
    ] {
        let (code, out) = check(name);
        assert!(
            check_name != "causality" || has_evidence(name),
            "{name}: export it again (see its module's header)"
        );
        assert_eq!(code, Some(1), "{name}: {out}");
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("✗ {check_name} ")))
            .unwrap_or_else(|| panic!("{name}: no failing {check_name}: {out}"));
        assert!(line.contains(path), "{name}: {line}");
        let failing = out.lines().filter(|l| l.starts_with('✗')).count();
        assert_eq!(failing, 1, "{name}: only {check_name} fails: {out}");
    }
}

#[test]
fn view_shows_a_students_steps_with_their_own_op_names_and_whys() {
    let path = format!("{DIR}/nanogpt_style.jsonl");
    let (code, out, err) = cli(&["view", &path, "--format", "markdown"]);
    assert_eq!(code, Some(0), "{err}");
    // Ops shapetrace has no name for keep the exporter's.
    assert!(out.contains("transpose") && out.contains("matmul"), "{out}");
    // Whys from each step's kind and shapes.
    assert!(out.contains("reorders the axes"), "{out}");
    assert!(out.contains("summed away"), "{out}");
    let (code, table, _) = cli(&["view", &path, "--format", "table"]);
    assert_eq!(code, Some(0));
    assert!(
        table.contains("◆ leaves (B,T,d)") && table.contains("↩ returns"),
        "{table}"
    );
    assert!(table.contains("✓ add (2,4,64) + (2,4,64)"), "{table}");
}

#[test]
fn a_broken_forward_is_shown_where_it_stopped() {
    let path = format!("{DIR}/mlp_no_down.jsonl");
    let (code, table, err) = cli(&["view", &path, "--format", "table"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(table.contains("block1.resid_2"), "{table}");
    assert!(table.contains("(2,4,256)"), "{table}");
}

#[test]
fn the_stepper_steps_through_a_students_log_and_will_not_retrace_it() {
    use shapetrace::tui::action::Action;
    use shapetrace::tui::app::App;
    let path = std::path::Path::new(DIR).join("nanogpt_style.jsonl");
    let replay = shapetrace::trace::log::read_file(&path).unwrap();
    let mut app = App::replay(replay, "nanogpt_style.jsonl", shapetrace::tui::theme::MONO);
    // The contract judged from the events, the probes as the log gave them.
    let names: Vec<&str> = app.run.checks.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), 10, "{names:?}");
    assert!(app.run.checks.iter().all(|c| c.ok));
    for _ in 0..20 {
        app.update(Action::Next);
    }
    let screen = common::screen_of(&app, 120, 36);
    assert!(screen.contains("block1.attn"), "{screen}");
    assert!(screen.contains("why:"), "{screen}");
    // The header names the exporter, not fields of a model of ours; the
    // Budget and Probes tabs say what the log holds, and nothing runs.
    assert!(screen.contains("from shapetrace_export"), "{screen}");
    for _ in 0..4 {
        app.update(Action::NextTab);
    }
    let budget = common::screen_of(&app, 120, 36);
    assert!(budget.contains("not the model's weights"), "{budget}");
    app.update(Action::NextTab);
    let probes = common::screen_of(&app, 120, 36);
    assert!(probes.contains("the probes ran on that module"), "{probes}");
    assert!(app.wanted.is_empty(), "no probe re-runs a model of ours");
    // A live switch would trace a model of ours, not the student's.
    app.update(Action::CycleAct);
    let status = app.status.clone().unwrap_or_default();
    assert!(status.contains("cannot re-trace"), "{status}");
    assert!(app.wanted.is_empty(), "nothing is traced");
}

/// A student's real log, edited: `check --log` judges what the log holds
/// (its evidence, its events' operands), never what its summary claims.
#[test]
fn an_edited_students_log_is_judged_from_its_evidence_and_operands() {
    let dir = tempfile::tempdir().unwrap();
    let edit = |name: &str, from: &str, to: &str| {
        let text = std::fs::read_to_string(format!("{DIR}/{name}.jsonl")).unwrap();
        assert!(text.contains(from), "{name}: {from}");
        let path = dir.path().join(format!("{name}.jsonl"));
        std::fs::write(&path, text.replace(from, to)).unwrap();
        let (code, out, err) = cli(&["check", "--log", path.to_str().unwrap()]);
        (code, format!("{out}{err}"))
    };
    let said_pass = r#","checks":[{"name":"causality","ok":true,"status":"pass","path":null,"detail":"no leak"}]}"#;
    // A summary that says "pass" over evidence that leaks: the summary is reported.
    let (code, out) = edit(
        "no_causal_mask",
        r#""residual_adds":4}"#,
        &format!(r#""residual_adds":4{said_pass}"#),
    );
    assert_eq!(code, Some(1), "{out}");
    let line = out
        .lines()
        .find(|l| l.starts_with("✗ causality"))
        .unwrap_or("");
    assert!(line.contains("summary says pass"), "{out}");
    // The same summary over evidence that holds agrees with it.
    let (code, out) = edit(
        "nanogpt_style",
        r#""residual_adds":4}"#,
        &format!(r#""residual_adds":4{said_pass}"#),
    );
    assert_eq!(code, Some(0), "{out}");
    // The FFN hidden layer edited to a shape its linear cannot give.
    let (code, out) = edit(
        "nanogpt_style",
        r#""path":"block1.mlp.c_fc.linear","op":"linear","shape":[2,4,256]"#,
        r#""path":"block1.mlp.c_fc.linear","op":"linear","shape":[2,4,100]"#,
    );
    assert_eq!(code, Some(1), "{out}");
    let line = out
        .lines()
        .find(|l| l.starts_with("✗ op-shapes"))
        .unwrap_or("");
    assert!(
        line.contains("block1.mlp.c_fc.linear") && line.contains("nanogpt_style.py:"),
        "{out}"
    );
}

/// The placement a log declares is judged both ways: a Pre-LN student's log
/// declared Post-LN fails `wiring` at its second add, whose stream no norm
/// has read; declared Pre-LN, as exported, it passes (above).
#[test]
fn a_pre_ln_students_log_declared_post_ln_fails_wiring() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(format!("{DIR}/nanogpt_style.jsonl")).unwrap();
    assert!(text.contains(r#""placement":"pre""#));
    let path = dir.path().join("post.jsonl");
    std::fs::write(
        &path,
        text.replacen(r#""placement":"pre""#, r#""placement":"post""#, 1),
    )
    .unwrap();
    let (code, out, err) = cli(&["check", "--log", path.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{out}{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("✗ wiring"))
        .unwrap_or("");
    assert!(
        line.contains("block1.resid_2 adds onto block1.resid_1 at nanogpt_style.py:")
            && line.contains("a Post-LN block norms each sum"),
        "{out}"
    );
}
