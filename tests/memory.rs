//! Memory in proportion: every accepted shape-only run, every `params`,
//! every refusal and every `view` stays under 512 MB resident, at the
//! limits the tool sets (4096 blocks, a 64 MiB log with at most 16 Mi kept
//! values). Peaks are read from the kernel's account of waited-for
//! children (`getrusage(RUSAGE_CHILDREN)`), which only grows: each
//! command is judged by whether the peak crossed the line after it ran.
//!
//! This is its own test binary, with one test, so that no other test's
//! children share the account.

use assert_cmd::Command;
use nix::sys::resource::{UsageWho, getrusage};
use std::fmt::Write as _;
use std::path::Path;

/// The line no run may cross.
const LIMIT_KB: i64 = 512 * 1000;

fn peak_kb() -> i64 {
    getrusage(UsageWho::RUSAGE_CHILDREN).unwrap().max_rss()
}

/// Runs the binary in `dir` with `args`, asserts its exit code, and
/// returns the children's peak resident set afterwards, in kB.
fn run(dir: &Path, args: &[&str], code: i32) -> i64 {
    let out = Command::cargo_bin("shapetrace")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    peak_kb()
}

/// Runs the binary with `bytes` zero bytes piped to its standard input
/// and `args`, asserts exit code 2, and returns the children's peak.
fn refuse_piped(dir: &Path, args: &[&str], bytes: usize) -> i64 {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_shapetrace"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let chunk = vec![0u8; 1 << 20];
    for _ in 0..bytes >> 20 {
        if pipe.write_all(&chunk).is_err() {
            break;
        }
    }
    drop(pipe);
    assert_eq!(child.wait().unwrap().code(), Some(2), "{args:?}");
    peak_kb()
}

/// A log whose header is the lesson model's and whose events each keep
/// 4096 values, as many as the value cap allows (plus `extra`).
fn log_of_values(extra: usize) -> String {
    let log = String::from_utf8(
        Command::cargo_bin("shapetrace")
            .unwrap()
            .args(["trace", "--format", "json", "--shape-only"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let mut s = log.lines().next().unwrap().to_string();
    s.push('\n');
    let zeros = vec!["0"; 4096].join(",");
    let events = (16 << 20) / 4096 + extra;
    for step in 0..events {
        let _ = writeln!(
            s,
            r#"{{"kind":"event","step":{step},"path":"v","op":"input","shape":[4096],"axes":["n"],"dtype":"f32","on_stream":false,"departs":true,"returns":false,"inputs":[],"formula":"","stats":null,"values":[{zeros}]}}"#
        );
    }
    s
}

#[test]
fn every_run_at_the_limits_stays_under_512_mb() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let deep = ["--shape-only", "--layers", "4096"];
    let mut ran: Vec<(String, i64)> = Vec::new();
    let mut go = |args: Vec<&str>, code: i32| {
        let peak = run(d, &args, code);
        ran.push((args.join(" "), peak));
    };
    for preset in ["lesson", "lesson-swiglu", "lesson-gqa", "lesson-post-ln"] {
        let mut a = vec!["trace", "--preset", preset];
        a.extend(deep);
        go(a.clone(), 0);
        a.extend(["--format", "json", "--out", "deep.jsonl"]);
        go(a, 0);
        go(vec!["view", "deep.jsonl", "--format", "table"], 0);
        go(vec!["view", "deep.jsonl", "--format", "markdown"], 0);
        go(vec!["params", "--preset", preset, "--layers", "4096"], 0);
    }
    // A numeric log whose header claims 4096 blocks: `view` replays the
    // recorded events and verdicts, and never builds (or probes) that model.
    let log = String::from_utf8(
        Command::cargo_bin("shapetrace")
            .unwrap()
            .args(["trace", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let claimed = log.replacen("\"layers\":2,", "\"layers\":4096,", 1);
    assert_ne!(claimed, log);
    std::fs::write(d.join("claimed.jsonl"), claimed).unwrap();
    go(vec!["view", "claimed.jsonl", "--format", "table"], 0);
    go(vec!["check", "--shape-only", "--layers", "4096"], 0);
    // The 4-expert mixture (lesson-moe) at 4096 blocks fits; one of 256 is refused
    // up front by the trace's estimate, before it holds anything.
    let moe = ["--preset", "lesson-moe", "--layers", "4096"];
    for head in [
        &["trace", "--shape-only"][..],
        &["check", "--shape-only"],
        &["params"],
    ] {
        go([head, &moe[..]].concat(), 0);
        go([head, &moe[..], &["--experts", "256"]].concat(), 2);
    }
    go(vec!["params", "--preset", "gpt2-xl"], 0);
    go(vec!["trace", "--preset", "gpt2-xl"], 0);
    // Refusals: past the depth limit, and a log past the value cap.
    go(vec!["trace", "--shape-only", "--layers", "4097"], 2);
    go(vec!["params", "--layers", "1048576"], 2);
    std::fs::write(d.join("values.jsonl"), log_of_values(0)).unwrap();
    go(vec!["view", "values.jsonl", "--format", "table"], 0);
    std::fs::write(d.join("values.jsonl"), log_of_values(1)).unwrap();
    go(vec!["view", "values.jsonl", "--format", "table"], 2);
    // A piped checkpoint or input of 600 MB is spilled to a temporary file,
    // not held: refused for its content, with memory flat.
    for flag in ["--weights", "--input"] {
        let peak = refuse_piped(d, &["check", flag, "-", "--heads", "4"], 600 << 20);
        ran.push((format!("check {flag} - (600 MB piped)"), peak));
    }
    let over: Vec<String> = ran
        .iter()
        .filter(|(_, kb)| *kb > LIMIT_KB)
        .map(|(a, kb)| format!("{a}: peak so far {kb} kB"))
        .collect();
    assert!(
        over.is_empty(),
        "the peak crossed {LIMIT_KB} kB at:\n{}",
        over.join("\n")
    );
    // The account is real: it saw the runs (a deep trace is tens of MB).
    assert!(ran.iter().all(|(_, kb)| *kb > 10_000), "{ran:?}");
}
