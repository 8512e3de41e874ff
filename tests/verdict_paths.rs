//! Verdict paths no teaching fault reaches, each driven to fail by a
//! crafted input: shapetrace's own trace log, edited in one place, and
//! judged again by `check --log` (which judges a log's events, not its
//! summary). The unedited log passes the same check, so the edit alone
//! makes the failure. (Params' fewer, more and extra are unit tests of
//! its judge, `src/check/params.rs`; causality's window and missing-row
//! verdicts come from the window faults, `tests/faults.rs`.)

mod common;
use serde_json::Value;

/// A trace log of `args` (`trace --format json …`), as JSON lines.
fn log_of(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["trace", "--format", "json"];
    all.extend(args);
    let (code, out, err) = common::cli(&all);
    assert_eq!(code, Some(0), "{err}");
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `check --log` of `lines`: exit code and report.
fn check_log(lines: &[Value], name: &str) -> (Option<i32>, String) {
    let dir = std::env::temp_dir().join(format!("shapetrace-verdicts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.jsonl"));
    let text: String = lines.iter().map(|v| format!("{v}\n")).collect();
    std::fs::write(&path, text).unwrap();
    let (code, out, err) = common::cli(&["check", "--log", path.to_str().unwrap()]);
    let _ = std::fs::remove_file(&path);
    (code, format!("{out}{err}"))
}

/// The event at `path`.
fn event<'a>(lines: &'a mut [Value], path: &str) -> &'a mut Value {
    lines
        .iter_mut()
        .find(|v| v["kind"] == "event" && v["path"] == path)
        .unwrap_or_else(|| panic!("no event {path}"))
}

/// The line of `report` that gives `check`'s verdict.
fn verdict<'a>(report: &'a str, check: &str) -> &'a str {
    report
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some(check))
        .unwrap_or_else(|| panic!("no {check} in {report}"))
}

/// Routing's second rule: each token's k route weights sum to 1. Halving
/// one weight of token 0 breaks it, though every route still comes back.
#[test]
fn route_weights_that_do_not_sum_to_1_fail_routing() {
    let mut lines = log_of(&["--preset", "lesson-moe", "--values"]);
    let (_, report) = check_log(&lines, "moe");
    assert!(verdict(&report, "routing").starts_with("✓"), "{report}");
    let weights = event(&mut lines, "block1.moe.weights");
    let w0 = weights["values"][0].as_f64().unwrap();
    weights["values"][0] = (w0 * 0.5).into();
    let (code, report) = check_log(&lines, "moe-halved");
    assert_eq!(code, Some(1), "{report}");
    let line = verdict(&report, "routing");
    assert!(
        line.starts_with("✗") && line.contains("block1.moe.weights") && line.contains("token 0"),
        "{line}"
    );
    assert!(line.contains("must sum to 1"), "{line}");
}

/// Residual's dtype rule: both operands of the add in the stream's dtype.
/// An update recorded in bf16 (its event and the add's own record of it)
/// in an f32 model fails residual on the dtype, the shapes fitting.
#[test]
fn a_residual_update_of_another_dtype_fails_residual_on_the_dtype() {
    let mut lines = log_of(&[]);
    let (_, report) = check_log(&lines, "lesson");
    assert!(verdict(&report, "residual").starts_with("✓"), "{report}");
    event(&mut lines, "block1.attn.out")["dtype"] = "bf16".into();
    event(&mut lines, "block1.resid_1")["check"]["update_dtype"] = "bf16".into();
    let (code, report) = check_log(&lines, "lesson-bf16-update");
    assert_eq!(code, Some(1), "{report}");
    let line = verdict(&report, "residual");
    assert!(
        line.starts_with("✗") && line.contains("block1.resid_1"),
        "{line}"
    );
    assert!(
        line.contains("bf16") && line.contains("both operands must be f32"),
        "{line}"
    );
}
