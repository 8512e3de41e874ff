//! The binary as a user runs it: exit codes, the JSON Lines contract, bad
//! input answered in one line with exit code 2, atomic --out, closed pipes.

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};

fn shapetrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shapetrace"))
        .args(args)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn check_exits_0_on_the_default_model() {
    let o = shapetrace(&["check"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("all 10 checks hold"));
}

#[test]
fn check_exits_1_for_each_fault_naming_the_check_path_and_shapes() {
    for (fault, names) in [
        (
            "ffn-no-down",
            ["✗ residual", "block1.resid_2", "(2,4,64) + (2,4,256)"],
        ),
        (
            "attn-no-merge",
            ["✗ residual", "block1.resid_1", "(2,4,64) + (2,4,4,16)"],
        ),
        ("bias-w1-64", ["✗ op-shapes", "block1.mlp.up", "bias (64)"]),
        (
            "merge-no-transpose",
            ["✗ causality", "block1.attn.merge", "earlier position"],
        ),
        (
            "no-causal-mask",
            ["✗ causality", "block1.", "earlier position"],
        ),
        ("skip-block1", ["✗ wiring", "block2.ln_1", "block1.resid_2"]),
    ] {
        let o = shapetrace(&["check", "--fault", fault]);
        assert_eq!(o.status.code(), Some(1), "{fault}");
        let out = String::from_utf8_lossy(&o.stdout);
        for n in names {
            assert!(out.contains(n), "{fault}: {n} missing in\n{out}");
        }
    }
}

#[test]
fn trace_json_follows_the_contract() {
    let o = shapetrace(&["trace", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let header = &lines[0];
    assert_eq!(header["kind"], "header");
    assert_eq!(header["schema"], 4);
    assert_eq!(header["stream_shape"], serde_json::json!([2, 4, 64]));
    assert_eq!(header["dtype"], "f32");
    assert_eq!(header["d_model"], 64);
    let events = &lines[1..lines.len() - 1];
    assert_eq!(events.len(), 37);
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["kind"], "event");
        assert_eq!(e["step"], i);
        for key in [
            "path",
            "op",
            "shape",
            "dtype",
            "on_stream",
            "departs",
            "inputs",
            "formula",
            "stats",
        ] {
            assert!(e.get(key).is_some(), "event {i} lacks {key}");
        }
        for key in ["min", "max", "mean", "std", "finite"] {
            assert!(e["stats"].get(key).is_some(), "event {i} stats lack {key}");
        }
        let is_add = e["path"].as_str().unwrap().contains("resid_");
        assert_eq!(e.get("check").is_some(), is_add, "{}", e["path"]);
        if is_add {
            assert_eq!(e["check"]["stream"], serde_json::json!([2, 4, 64]));
            assert_eq!(e["check"]["update"], serde_json::json!([2, 4, 64]));
            assert_eq!(e["check"]["ok"], true);
        }
    }
    let summary = lines.last().unwrap();
    assert_eq!(summary["kind"], "summary");
    assert_eq!(summary["events"], 37);
    assert_eq!(summary["departures"], 16);
    assert_eq!(summary["residual_adds"], 4);
    let checks = summary["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 10);
    assert!(
        checks
            .iter()
            .all(|c| c["ok"] == true && c["name"].is_string() && c["detail"].is_string())
    );
}

#[test]
fn a_failed_trace_ends_with_the_failure_line() {
    let o = shapetrace(&["trace", "--format", "json", "--fault", "ffn-no-down"]);
    assert_eq!(o.status.code(), Some(0), "trace prints; check judges");
    let text = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let failure = &lines[lines.len() - 2];
    assert_eq!(failure["kind"], "failure");
    assert_eq!(failure["path"], "block1.resid_2");
    assert_eq!(failure["check"], "residual");
    assert_eq!(
        failure["residual"]["update"],
        serde_json::json!([2, 4, 256])
    );
}

#[test]
fn bad_input_gets_one_line_naming_the_value_and_exit_2() {
    let cases: &[(&[&str], &[&str])] = &[
        (&["--heads", "5"], &["heads 5", "1, 2, 4, 8, 16, 32, 64"]),
        (&["--kv-heads", "3"], &["kv-heads 3", "1, 2, 4"]),
        (&["--d-model", "0"], &["d_model", "0"]),
        (&["--seq", "0"], &["seq", "0"]),
        (&["--layers", "-2"], &["-2", "whole number"]),
        (
            &["--act", "tanh"],
            &["'tanh'", "relu, gelu, gelu-tanh, swiglu"],
        ),
        (
            &["--norm", "batchnorm"],
            &["'batchnorm'", "layernorm, rmsnorm"],
        ),
        (&["--fault", "oops"], &["'oops'", "ffn-no-down"]),
        (&["--preset", "gpt5"], &["'gpt5'", "lesson"]),
        (&["--dtype", "f8"], &["'f8'", "f32, f64, bf16, f16"]),
        (
            &["--fault", "bias-w1-64", "--no-bias"],
            &["bias-w1-64", "--no-bias"],
        ),
        (
            &["--fault", "skip-block1", "--layers", "1"],
            &["skip-block1", "2 layers"],
        ),
        (
            &["--d-model", "65536", "--seq", "65536", "--numeric"],
            &["896.4 GiB", "--max-memory limit of 4.0 GiB"],
        ),
        (&["--max-memory", "4XB"], &["'4XB'", "4GiB, 512MiB, 2G"]),
        (
            &["--numeric", "--shape-only"],
            &["--shape-only", "--numeric"],
        ),
        (
            &["--config", "/no/such/model.toml"],
            &["/no/such/model.toml"],
        ),
        (
            &["trace", "--out", "/no/such/dir/t.jsonl"],
            &["/no/such/dir"],
        ),
        (
            &["trace", "--format", "xml"],
            &["'xml'", "table, json, markdown"],
        ),
    ];
    for (args, needles) in cases {
        let mut all = vec!["check"];
        if args[0] == "trace" {
            all.clear();
        }
        all.extend_from_slice(args);
        let o = shapetrace(&all);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        for n in *needles {
            assert!(err.contains(n), "{args:?}: '{n}' not in {err}");
        }
    }
}

#[test]
fn model_files_report_the_bad_key_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("model.toml");
    std::fs::write(&p, "d_model = 64\nheds = 4\n").unwrap();
    let o = shapetrace(&["check", "--config", p.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err.contains("model.toml:2:1") && err.contains("heds") && err.contains("heads"),
        "{err}"
    );
    std::fs::write(&p, "d_model = [64\n").unwrap();
    let o = shapetrace(&["check", "--config", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("model.toml:1:"), "{}", stderr(&o));
    std::fs::write(&p, "preset = 'lesson-gqa'\nact = 'relu'\n").unwrap();
    let o = shapetrace(&["check", "--config", p.to_str().unwrap(), "--act", "swiglu"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn out_writes_the_whole_file_and_nothing_on_failure() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.jsonl");
    let o = shapetrace(&["trace", "--format", "json", "--out", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let text = std::fs::read_to_string(&p).unwrap();
    assert_eq!(text.lines().count(), 39);
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temp file left"
    );
    let bad = dir.path().join("missing").join("t.jsonl");
    let o = shapetrace(&["trace", "--out", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_closed_pipe_ends_the_trace_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shapetrace"))
        .args(["trace", "--format", "json", "--values"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("{\"kind\":\"header\""));
    // The reader is dropped here: the pipe is closed with output still to come.
    let out = child.wait_with_output().unwrap();
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn bare_command_without_a_terminal_points_to_trace() {
    let o = shapetrace(&[]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("not a terminal") && err.contains("shapetrace trace"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1);
}

#[test]
fn trace_table_marks_departures_returns_and_adds() {
    let o = shapetrace(&["trace"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("block1.attn.scores")
            && out.contains("◆ leaves (B,T,d)")
            && out.contains("↩ returns")
    );
    assert!(out.contains("✓ add (2,4,64) + (2,4,64)"));
}

#[test]
fn view_prints_a_saved_trace_and_names_the_first_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("t.jsonl");
    let o = shapetrace(&["trace", "--format", "json", "--out", log.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let o = shapetrace(&["view", log.to_str().unwrap(), "--format", "table"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let direct = shapetrace(&["trace"]);
    assert_eq!(
        o.stdout, direct.stdout,
        "a replayed trace prints as the live one"
    );

    let text = std::fs::read_to_string(&log).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[5] = "{\"kind\":\"event\",\"step\":";
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, lines.join("\n")).unwrap();
    let o = shapetrace(&["view", bad.to_str().unwrap(), "--format", "table"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.jsonl:6:"), "{}", stderr(&o));
    std::fs::write(&bad, text.replacen("\"schema\":4", "\"schema\":7", 1)).unwrap();
    let o = shapetrace(&["view", bad.to_str().unwrap(), "--format", "table"]);
    assert!(
        stderr(&o).contains("bad.jsonl:1: schema 7 is not supported; allowed: 1, 2, 3, 4"),
        "{}",
        stderr(&o)
    );
    let mut swapped = text.lines().map(str::to_string).collect::<Vec<_>>();
    swapped.swap(3, 4);
    std::fs::write(&bad, swapped.join("\n")).unwrap();
    let o = shapetrace(&["view", bad.to_str().unwrap(), "--format", "table"]);
    assert!(
        stderr(&o).contains("bad.jsonl:4: step 3 out of order; expected 2"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_closed_pipe_does_not_hide_a_failing_check() {
    for args in [
        &["check", "--fault", "ffn-no-down"][..],
        &["check", "--format", "json", "--fault", "no-causal-mask"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_shapetrace"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader is gone before anything is written
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).is_empty(), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn out_writes_through_a_symlink_and_keeps_the_file_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.jsonl");
    std::fs::write(&real, "old").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let o = shapetrace(&["trace", "--format", "json", "--out", link.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );
    assert!(
        std::fs::read_to_string(&real)
            .unwrap()
            .starts_with("{\"kind\":\"header\"")
    );
    assert_eq!(
        std::fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let o = shapetrace(&["trace", "--out", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("it is a folder"), "{}", stderr(&o));
}

#[test]
fn contradictory_flags_are_refused() {
    for args in [
        &["params", "--bias", "--no-bias"][..],
        &["params", "--tied", "--untied"],
        &["check", "--final-norm", "--no-final-norm"],
        &["trace", "--values"],
        &["trace", "--format", "json", "--values", "--shape-only"],
    ] {
        let o = shapetrace(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&o).trim_end().lines().count(), 1, "{args:?}");
    }
}

#[test]
fn probes_re_run_the_loaded_weights_and_catch_a_fault_there() {
    let w = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/nanogpt-tiny.safetensors"
    );
    let check = |extra: &[&str]| {
        let mut args = vec!["check", "--weights", w, "--heads", "4", "--format", "json"];
        args.extend_from_slice(extra);
        let o = shapetrace(&args);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let status = |name: &str| {
            let all = v["checks"].as_array().unwrap();
            let c = all.iter().find(|c| c["name"] == name).unwrap();
            c["status"].as_str().unwrap().to_string()
        };
        (o.status.code(), status("positionwise"), status("causality"))
    };
    let pass = (Some(0), "pass".to_string(), "pass".to_string());
    assert_eq!(check(&[]), pass);
    // The same checkpoint without its causal mask: the probe re-runs the
    // loaded weights and sees the future leak.
    let leak = check(&["--fault", "no-causal-mask"]);
    assert_eq!((leak.0, leak.2.as_str()), (Some(1), "fail"), "{leak:?}");
}

/// A check that judged nothing is counted apart: GPT-2 XL traces shapes
/// only, so its four value checks are skipped, not held.
#[test]
fn the_headline_counts_skipped_checks_apart() {
    let o = shapetrace(&["check", "--preset", "gpt2-xl"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("6 checks hold, 4 skipped"), "{out}");
    assert!(!out.contains("all 10 checks hold"), "{out}");
}
