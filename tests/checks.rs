//! Every check holds on a grid of valid variants; every fault is caught by
//! exactly the check named for it; and every contract check fails on a
//! trace broken by hand, so none of them is a check that cannot fail.

mod common;
use common::cfg;
use shapetrace::check::{self, contract};
use shapetrace::{CheckName, Status, Trace};

fn failing(checks: &[shapetrace::CheckResult]) -> Vec<CheckName> {
    checks
        .iter()
        .filter(|c| c.status == Status::Fail)
        .map(|c| c.name)
        .collect()
}

#[test]
fn every_check_holds_on_the_grid_of_variants() {
    let mut n = 0;
    for act in ["relu", "gelu", "gelu-tanh", "swiglu"] {
        for norm in ["layernorm", "rmsnorm"] {
            for placement in ["pre", "post"] {
                for bias in [true, false] {
                    for kv in [4, 2, 1] {
                        for dtype in ["f32", "f64"] {
                            let toml = format!(
                                "act='{act}'\nnorm='{norm}'\nplacement='{placement}'\nbias={bias}\nkv_heads={kv}\ndtype='{dtype}'"
                            );
                            let run = shapetrace::run(&cfg(&toml)).unwrap();
                            assert!(
                                run.trace.failure.is_none(),
                                "{toml}: {:?}",
                                run.trace.failure
                            );
                            assert!(failing(&run.checks).is_empty(), "{toml}");
                            assert!(
                                run.checks.iter().all(|c| c.status == Status::Pass),
                                "{toml}"
                            );
                            n += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(n, 192);
}

#[test]
fn shape_faults_stop_the_forward_where_the_lesson_says() {
    for (fault, path, shapes) in [
        (
            "ffn-no-down",
            "block1.resid_2",
            vec![vec![2, 4, 64], vec![2, 4, 256]],
        ),
        (
            "attn-no-merge",
            "block1.resid_1",
            vec![vec![2, 4, 64], vec![2, 4, 4, 16]],
        ),
        (
            "bias-w1-64",
            "block1.mlp.up",
            vec![vec![2, 4, 64], vec![64, 256], vec![64]],
        ),
    ] {
        let t = shapetrace::trace(&cfg(&format!("fault = '{fault}'"))).unwrap();
        let f = t.failure.as_ref().unwrap();
        assert_eq!(f.path, path, "{fault}");
        let got: Vec<Vec<usize>> = f.operands.iter().map(|o| o.shape.clone()).collect();
        assert_eq!(got, shapes, "{fault}");
        assert_eq!(
            t.events.last().unwrap().step + 1,
            f.step,
            "{fault}: the trace ends at the failure"
        );
    }
}

#[test]
fn merge_without_transpose_passes_every_shape_check() {
    let run = shapetrace::run(&cfg("fault = 'merge-no-transpose'")).unwrap();
    let clean = shapetrace::trace(&shapetrace::ModelConfig::default()).unwrap();
    let shapes = |t: &Trace| t.events.iter().map(|e| e.shape.clone()).collect::<Vec<_>>();
    assert_eq!(shapes(&run.trace), shapes(&clean));
    let c = run
        .checks
        .iter()
        .find(|c| c.name == CheckName::Causality)
        .unwrap();
    assert_eq!(c.path.as_deref(), Some("block1.attn.merge"));
}

fn lesson() -> Trace {
    shapetrace::trace(&shapetrace::ModelConfig::default()).unwrap()
}

fn event<'a>(t: &'a mut Trace, path: &str) -> &'a mut shapetrace::Event {
    t.events.iter_mut().find(|e| e.path == path).unwrap()
}

#[test]
fn stream_check_fails_on_a_stream_tensor_off_shape() {
    let mut t = lesson();
    assert_eq!(contract::stream(&t).status, Status::Pass);
    event(&mut t, "block1.ln_2").shape = vec![2, 4, 256];
    let r = contract::stream(&t);
    assert_eq!(
        (r.status, r.path.as_deref()),
        (Status::Fail, Some("block1.ln_2"))
    );
}

#[test]
fn residual_check_recomputes_operands_and_counts_adds() {
    let mut t = lesson();
    assert_eq!(contract::residual(&t).status, Status::Pass);
    event(&mut t, "block2.resid_1")
        .check
        .as_mut()
        .unwrap()
        .update = vec![2, 4, 4, 16];
    let r = contract::residual(&t);
    assert_eq!(
        (r.status, r.path.as_deref()),
        (Status::Fail, Some("block2.resid_1"))
    );

    let mut t = lesson();
    t.events.retain(|e| e.path != "block2.resid_2");
    assert_eq!(contract::residual(&t).status, Status::Fail, "3 of 4 adds");
}

#[test]
fn returns_check_fails_when_an_add_reads_a_departed_tensor() {
    let mut t = lesson();
    assert_eq!(contract::returns(&t).status, Status::Pass);
    event(&mut t, "block1.resid_2").inputs[1] = "block1.mlp.act".into();
    event(&mut t, "block1.mlp.down").shape = vec![2, 4, 256];
    let r = contract::returns(&t);
    assert_eq!(
        (r.status, r.path.as_deref()),
        (Status::Fail, Some("block1.resid_2"))
    );
}

#[test]
fn wiring_check_fails_when_a_block_skips_its_predecessor() {
    let run = shapetrace::run(&cfg("fault = 'skip-block1'")).unwrap();
    let r = contract::wiring(&run.trace);
    assert_eq!(
        (r.status, r.path.as_deref()),
        (Status::Fail, Some("block2.ln_1"))
    );
    assert!(
        r.detail
            .contains("expected the previous output block1.resid_2"),
        "{}",
        r.detail
    );

    let mut t = shapetrace::trace(&cfg("final_norm = true")).unwrap();
    assert_eq!(contract::wiring(&t).status, Status::Pass);
    event(&mut t, "ln_f").inputs = vec!["block1.resid_2".into()];
    assert_eq!(contract::wiring(&t).status, Status::Fail);
}

#[test]
fn finite_check_fails_on_a_nan() {
    let mut t = lesson();
    assert_eq!(contract::finite(&t).status, Status::Pass);
    event(&mut t, "block1.mlp.act")
        .stats
        .as_mut()
        .unwrap()
        .finite = false;
    let r = contract::finite(&t);
    assert_eq!(
        (r.status, r.path.as_deref()),
        (Status::Fail, Some("block1.mlp.act"))
    );
}

#[test]
fn shape_only_runs_skip_value_checks_but_judge_shapes() {
    let shapes = shapetrace::Request::shapes();
    let run = shapetrace::run_request(&shapetrace::ModelConfig::default(), &shapes).unwrap();
    let status = |n: CheckName| run.checks.iter().find(|c| c.name == n).unwrap().status;
    assert_eq!(status(CheckName::Finite), Status::Skip);
    assert_eq!(status(CheckName::Causality), Status::Skip);
    assert_eq!(status(CheckName::Residual), Status::Pass);
    let bad = shapetrace::run_request(&cfg("fault = 'ffn-no-down'"), &shapes).unwrap();
    assert_eq!(failing(&bad.checks), [CheckName::Residual]);
    assert_eq!(check::all(&bad.trace), bad.checks);
}

/// A log whose output norm (sandwich norms) names itself as its input
/// gets a verdict, not a loop: `returns` steps back only to earlier events.
#[test]
fn a_log_whose_norm_reads_itself_is_judged_not_looped_on() {
    let (code, out, err) =
        common::cli(&["trace", "--preset", "lesson-sandwich", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let looped: Vec<String> = out
        .lines()
        .map(|l| {
            let mut e: serde_json::Value = serde_json::from_str(l).unwrap();
            if e["path"] == "block1.post_ln_1" {
                e["inputs"] = serde_json::json!(["block1.post_ln_1"]);
            }
            e.to_string()
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("looped.jsonl");
    std::fs::write(&log, looped.join("\n") + "\n").unwrap();
    let o = assert_cmd::Command::cargo_bin("shapetrace")
        .unwrap()
        .args(["check", "--log", log.to_str().unwrap()])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("✗ returns"), "{text}");
}
