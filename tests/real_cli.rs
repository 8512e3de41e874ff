//! Real models from the command line: config.json, --weights, --input,
//! --output, --max-memory and the shape-only note.

use std::path::Path;
use std::process::{Command, Output};
mod common;

fn shapetrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shapetrace"))
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn params_of_a_llama_config_json_is_the_published_count() {
    let o = shapetrace(&["params", "--config", "tests/fixtures/hf/llama-2-7b.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.starts_with("llama (llama-2-7b.json): 6,738,415,616 parameters"),
        "{out}"
    );
}

#[test]
fn a_nanogpt_checkpoint_traces_to_pytorchs_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("y.npy");
    let o = shapetrace(&[
        "trace",
        "--weights",
        "tests/fixtures/nanogpt-tiny.safetensors",
        "--heads",
        "4",
        "--input",
        "tests/fixtures/nanogpt-tiny-input.npy",
        "--output",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("ln_f"));
    let got = shapetrace::npy::read(&out).unwrap();
    let want = shapetrace::npy::read(Path::new("tests/fixtures/nanogpt-tiny-output.npy")).unwrap();
    let diff = common::max_diff(&got, &want);
    assert!(diff < 1e-4, "{diff}");
}

#[test]
fn too_large_for_numbers_traces_shapes_with_one_note_and_exit_0() {
    let o = shapetrace(&["trace", "--preset", "gpt2-xl", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("note:") && err.contains("8.8 GiB") && err.contains("shapes only"));
    assert!(
        text(&o.stdout)
            .lines()
            .next()
            .unwrap()
            .contains("\"mode\":\"shape-only\"")
    );
    // Raising the limit removes the note (counted with params: nothing runs).
    let o = shapetrace(&["params", "--preset", "gpt2-xl", "--max-memory", "16GiB"]);
    assert!(o.stderr.is_empty() && o.status.success());
}

#[test]
fn numbers_required_but_impossible_exit_2_on_one_line_leaving_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("y.npy");
    let w = "tests/fixtures/nanogpt-tiny.safetensors";
    let cases: Vec<(Vec<&str>, &[&str])> = vec![
        (
            vec![
                "trace",
                "--input",
                "tests/fixtures/nanogpt-tiny-input.npy",
                "--shape-only",
            ],
            &["--shape-only conflicts with --input"],
        ),
        (
            vec!["--weights", w, "--heads", "4", "--max-memory", "1k"],
            &["(--weights)", "1.0 KiB"],
        ),
        (
            vec!["trace", "--weights", w, "--preset", "gpt2-xl"],
            &["(--weights)", "8.8 GiB", "4.0 GiB"],
        ),
        (
            vec![
                "trace",
                "--weights",
                w,
                "--heads",
                "4",
                "--max-memory",
                "1k",
            ],
            &["(--weights)", "1.0 KiB"],
        ),
        (
            vec!["trace", "--weights", w, "--heads", "3"],
            &["heads 3", "allowed heads"],
        ),
        (
            vec!["trace", "--weights", w, "--preset", "lesson-swiglu"],
            &["act swiglu", "relu, gelu or gelu-tanh"],
        ),
        (
            vec![
                "trace",
                "--preset",
                "gpt2-xl",
                "--output",
                out.to_str().unwrap(),
            ],
            &["(--output)", "8.8 GiB"],
        ),
        (
            vec![
                "trace",
                "--fault",
                "ffn-no-down",
                "--output",
                out.to_str().unwrap(),
            ],
            &["--output", "stopped at a failed check"],
        ),
        (
            vec!["trace", "--input", "tests/fixtures/hf/gpt2.json"],
            &["not a valid .npy", "magic"],
        ),
        (
            vec![
                "params",
                "--config",
                "tests/fixtures/nanogpt-tiny-input.npy",
            ],
            &["nanogpt-tiny-input.npy"],
        ),
    ];
    for (args, needles) in cases {
        let o = shapetrace(&args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        for n in needles {
            assert!(err.contains(n), "{args:?}: '{n}' not in {err}");
        }
        assert!(!out.exists(), "{args:?} left {out:?}");
    }
}

#[test]
fn no_progress_bar_when_stderr_is_not_a_terminal() {
    // About a second of numeric work: long enough for the bar on a terminal.
    let o = shapetrace(&[
        "trace",
        "--preset",
        "gpt2-small",
        "--seq",
        "512",
        "--layers",
        "6",
    ]);
    assert!(o.status.success());
    assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
}
