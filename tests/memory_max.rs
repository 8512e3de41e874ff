//! Mixtures at the documented maxima (256 experts × 4096 blocks): every
//! command either fits or is refused up front with one line and exit 2,
//! by the trace's memory estimate against `--max-memory` or against the
//! process's own limit (`ulimit -v`); nothing aborts (exit 134, as a run
//! that allocated past its limit did before the estimate).
//!
//! The limited runs set `RLIMIT_AS` in the child before it execs.

mod common;

use assert_cmd::Command;
use nix::sys::resource::{Resource, setrlimit};
use std::os::unix::process::CommandExt;

/// The address space a limited run is given: 512 MB.
const LIMIT: u64 = 512_000_000;

/// The deepest, widest mixture the tool allows.
const MAX: [&str; 6] = [
    "--preset",
    "lesson-moe",
    "--experts",
    "256",
    "--layers",
    "4096",
];

/// Runs the binary with `args`, under [`LIMIT`] when `limited`; its exit
/// code and stderr.
fn run(args: &[&str], limited: bool) -> (Option<i32>, String) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_shapetrace"));
    cmd.args(args);
    if limited {
        #[allow(unsafe_code)]
        // SAFETY: between fork and exec the closure only makes the
        // setrlimit system call: no allocation, no lock.
        unsafe {
            cmd.pre_exec(|| {
                setrlimit(Resource::RLIMIT_AS, LIMIT, LIMIT).map_err(std::io::Error::from)
            });
        }
    }
    let out = cmd.output().expect("the binary runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts a refusal: exit 2 and one line naming the trace, `limit` and
/// what to change.
fn refused(args: &[&str], limited: bool, limit: &str) -> String {
    let (code, err) = run(args, limited);
    assert_eq!(code, Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    for want in ["shapetrace: the trace of 4096 blocks", limit, "at most "] {
        assert!(err.contains(want), "{args:?}: no {want:?} in {err}");
    }
    err
}

/// A Mixtral config.json at the maxima: 256 local experts, 4096 layers.
fn mixtral_max(dir: &std::path::Path) -> String {
    let text = std::fs::read_to_string("tests/fixtures/hf/mixtral-8x7b-v0.1.json").unwrap();
    let text = text
        .replace("\"num_local_experts\": 8", "\"num_local_experts\": 256")
        .replace("\"num_hidden_layers\": 32", "\"num_hidden_layers\": 4096");
    let path = dir.join("config.json");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn every_command_at_the_maxima_is_refused_in_one_line_by_default_and_under_ulimit() {
    let dir = tempfile::tempdir().unwrap();
    let mixtral = mixtral_max(dir.path());
    fn with<'a>(head: &[&'a str]) -> Vec<&'a str> {
        [head, &MAX[..]].concat()
    }
    let cases: Vec<Vec<&str>> = vec![
        with(&["trace", "--shape-only"]),
        with(&["trace"]),
        with(&["check", "--shape-only"]),
        with(&["params"]),
        // The stepper: refused before it opens (stdin is no terminal here,
        // which it would say after the refusal).
        with(&[]),
        vec!["trace", "--config", &mixtral],
        vec!["check", "--shape-only", "--config", &mixtral],
        vec!["params", "--config", &mixtral],
        vec!["--config", &mixtral],
    ];
    for args in &cases {
        // The default limit, 4 GiB: the trace alone is about 11 GiB.
        refused(args, false, "over the --max-memory limit of 4.0 GiB");
        // Under 512 MB of address space, even with --max-memory raised:
        // refused for the process's limit, not aborted half-way.
        let mut raised = args.clone();
        raised.extend(["--max-memory", "64GiB"]);
        refused(&raised, true, "(ulimit -v) leaves");
    }
}

#[test]
fn the_blocks_the_refusal_allows_run_under_that_limit() {
    // 256 blocks of 256 experts hold about 700 MB: over 512 MB.
    let deep = [
        "trace",
        "--shape-only",
        "--preset",
        "lesson-moe",
        "--experts",
        "256",
    ];
    let over = [&deep[..], &["--layers", "256"]].concat();
    let (code, err) = run(&over, true);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("ulimit -v"), "{err}");
    // It names the most blocks that fit: that many run, just under it.
    let most: usize = err
        .split("at most ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no block count in {err}"));
    assert!((32..256).contains(&most), "{err}");
    let n = most.to_string();
    for cmd in ["trace", "check"] {
        let args = [&[cmd][..], &deep[1..], &["--layers", &n]].concat();
        let (code, err) = run(&args, true);
        assert_eq!(code, Some(0), "{args:?} under 512 MB: {err}");
    }
}

#[test]
fn a_max_memory_past_1_pib_is_refused_naming_the_value_and_the_range() {
    for big in ["99999999999999999999GiB", "1025T", "18446744073709551616"] {
        let out = Command::cargo_bin("shapetrace")
            .unwrap()
            .args(["params", "--max-memory", big])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{big}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        for want in [big, "is too large", "at most 1024T (1 PiB)"] {
            assert!(err.contains(want), "{big}: no {want:?} in {err}");
        }
    }
    let out = Command::cargo_bin("shapetrace")
        .unwrap()
        .args(["params", "--max-memory", "1024T"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_watched_edit_to_a_model_that_would_not_fit_keeps_the_last_good_trace() {
    use shapetrace::Overlay;
    use shapetrace::tui::{msg::Msg, watch};
    let mut lp = common::stepper(shapetrace::ModelConfig::default(), Default::default());
    let before = lp.app.run.trace.clone();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("model.toml");
    std::fs::write(
        &file,
        "preset = \"lesson-moe\"\nexperts = 256\nlayers = 4096\n",
    )
    .unwrap();
    let read = watch::read(&file, &Overlay::default());
    assert_eq!(read.as_ref().map(|c| c.layers), Ok(4096), "a valid model");
    lp.sender().send(Msg::Reloaded(read)).unwrap();
    common::settle(&mut lp);
    let status = lp.app.status.clone().unwrap_or_default();
    for want in [
        "the trace of 4096 blocks of 256 experts each",
        "--max-memory",
        "the last good trace stays",
    ] {
        assert!(status.contains(want), "no {want:?} in {status}");
    }
    assert_eq!(lp.app.run.trace, before, "the last good trace is shown");
    // The status line starts with the refusal (80 columns show no more).
    let frame = common::frame(&lp);
    assert!(
        frame.contains("model file: the trace of 4096 blocks"),
        "{frame}"
    );
}

#[test]
fn a_numeric_run_under_ulimit_traces_shapes_or_is_refused_instead_of_aborting() {
    // GPT-2 small's numeric run needs about 1.7 GiB: under the default
    // 4 GiB, over the 512 MB the process may take.
    let (code, err) = run(&["trace", "--preset", "gpt2-small"], true);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("tracing shapes only"), "{err}");
    let (code, err) = run(&["trace", "--preset", "gpt2-small", "--numeric"], true);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("a numeric run (--numeric) needs about"),
        "{err}"
    );
}
