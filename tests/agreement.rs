//! One judge per rule: `check --format json`, `probes` (both kinds) and
//! the trace log's summary give the same verdict on every check, for the
//! correct model and for every fault; and every fault is caught by its
//! named check on every preset and on a grid of variants, wherever the
//! check can judge it.

use assert_cmd::Command;
use serde_json::Value;
use shapetrace::check::catches_on;
use shapetrace::check::influence::PROBE_MAX_BYTES;
use shapetrace::config::Fault;
use shapetrace::config::preset::{PRESETS, by_name};
use shapetrace::{CheckName, Status};
use std::collections::BTreeMap;

mod common;

fn shapetrace(args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("shapetrace")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    let code = out.status.code().expect("an exit code, not a signal");
    (code, String::from_utf8(out.stdout).unwrap())
}

/// name → status of every check in a JSON list of checks.
fn verdicts(checks: &Value) -> BTreeMap<String, String> {
    checks
        .as_array()
        .expect("a list of checks")
        .iter()
        .map(|c| {
            let (name, status) = (&c["name"], &c["status"]);
            (
                name.as_str().unwrap().into(),
                status.as_str().unwrap().into(),
            )
        })
        .collect()
}

/// What `probes --kind kind` says of the model, as a check status: exit 0
/// is pass, 1 is fail, and a model it cannot probe (exit 2, "cannot
/// probe") is skip.
fn probe_status(model: &[&str], kind: &str) -> String {
    let mut args = vec!["probes", "--kind", kind];
    args.extend_from_slice(model);
    let (code, out) = shapetrace(&args);
    match code {
        0 => "pass".into(),
        1 => "fail".into(),
        c => {
            assert_eq!(c, 2, "probes {kind} {model:?}: {out}");
            "skip".into()
        }
    }
}

#[test]
fn check_probes_and_the_log_summary_agree_on_every_verdict() {
    let mut models: Vec<Vec<&str>> = vec![vec![]];
    // Each fault with the flags its row lists (a 16-bit model for the
    // cast faults, experts for moe-capacity, a window for the window ones).
    models.extend(Fault::ALL.iter().map(|f| {
        let mut args = vec!["--fault", f.as_str()];
        args.extend_from_slice(f.spec().args);
        args
    }));
    for model in &models {
        let mut args = vec!["check", "--format", "json"];
        args.extend_from_slice(model);
        let (code, out) = shapetrace(&args);
        let json: Value = serde_json::from_str(&out).unwrap();
        let checked = verdicts(&json["checks"]);
        // Every check, `routing` only where the anatomy has experts,
        // `decode` only where the run decodes, `grads` only with the
        // backward, `shard` only on a model split across devices.
        let moe = model.contains(&"lesson-moe");
        let decodes = model.contains(&"--decode");
        let backward = model.contains(&"--backward");
        let split = [&"--tp", &"--pp", &"--ep"]
            .iter()
            .any(|f| model.contains(f));
        let all = CheckName::ALL.len()
            - usize::from(!moe)
            - usize::from(!decodes)
            - usize::from(!backward)
            - usize::from(!split);
        assert_eq!(checked.len(), all, "{model:?}");
        assert_eq!(code, i32::from(json["ok"] == false), "{model:?}");

        let mut args = vec!["trace", "--format", "json"];
        args.extend_from_slice(model);
        let (_, log) = shapetrace(&args);
        let summary: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
        assert_eq!(summary["kind"], "summary", "{model:?}");
        assert_eq!(
            verdicts(&summary["checks"]),
            checked,
            "{model:?}: log summary"
        );

        for kind in ["causality", "positionwise"] {
            assert_eq!(
                probe_status(model, kind),
                checked[kind],
                "{model:?}: probes --kind {kind} against check"
            );
        }
    }
}

/// The checks that fail on `cfg`, and those that judged nothing. A model
/// too large for the probes to re-run traces shapes only, as it would
/// under a small `--max-memory`.
fn judged(cfg: &shapetrace::ModelConfig) -> (Vec<CheckName>, Vec<CheckName>) {
    let req = shapetrace::Request {
        max_memory: Some(PROBE_MAX_BYTES),
        ..shapetrace::Request::default()
    };
    let run = shapetrace::run_request(cfg, &req).unwrap();
    let with = |s: Status| {
        run.checks
            .iter()
            .filter(|c| c.status == s)
            .map(|c| c.name)
            .collect()
    };
    (with(Status::Fail), with(Status::Skip))
}

/// A fault is caught by exactly its named checks, except that a check
/// which could not judge it (a shape-only run has no values to probe) is
/// skipped, never passed.
fn caught_as_named(cfg: &shapetrace::ModelConfig, fault: Fault, what: &str) {
    let (failing, skipped) = judged(cfg);
    let named = catches_on(fault, cfg);
    assert!(
        failing.iter().all(|c| named.contains(c)),
        "{what} {fault}: {failing:?} fail, the table names {named:?}"
    );
    for c in &named {
        assert!(
            failing.contains(c) || skipped.contains(c),
            "{what} {fault}: {c} neither fails nor is skipped"
        );
    }
    assert!(
        !failing.is_empty() || named.iter().all(|c| skipped.contains(c)),
        "{what} {fault}"
    );
}

#[test]
fn every_fault_is_caught_by_its_named_check_on_every_preset() {
    for (name, _) in PRESETS {
        let base = by_name(name).unwrap();
        for &fault in Fault::ALL {
            let cfg = shapetrace::ModelConfig {
                fault: Some(fault),
                ..base.clone()
            };
            if cfg.validate().is_err() {
                continue; // the fault would not show on this model
            }
            caught_as_named(&cfg, fault, name);
        }
    }
}

#[test]
fn every_fault_is_caught_by_its_named_check_on_every_variant() {
    let mut n = 0;
    for act in ["relu", "gelu", "gelu-tanh", "swiglu"] {
        for norm in ["layernorm", "rmsnorm"] {
            for placement in ["pre", "post"] {
                for (bias, kv, dtype) in [(true, 4, "f32"), (false, 2, "f64"), (true, 1, "bf16")] {
                    for &fault in Fault::ALL {
                        let toml = format!(
                            "act='{act}'\nnorm='{norm}'\nplacement='{placement}'\nbias={bias}\nkv_heads={kv}\ndtype='{dtype}'\nfault='{fault}'"
                        );
                        // A fault that would not show on a variant is refused.
                        let overlay = shapetrace::Overlay::from_toml(&toml, "grid").unwrap();
                        let Ok(cfg) = overlay.resolve() else {
                            continue;
                        };
                        caught_as_named(&cfg, fault, &toml);
                        n += 1;
                    }
                }
            }
        }
    }
    assert!(n > 300, "{n} variants with a fault");
}
