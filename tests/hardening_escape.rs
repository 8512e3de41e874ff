//! Every writer shows a name from a file, a log or a config through one
//! escaping per output kind, and the log reader refuses what `view` and
//! `check --log` would read differently. Bad input is one line and exit 2
//! (as in `tests/bad_input.rs`); a hostile name that is read is shown
//! escaped: no control character reaches the terminal, no tag a Markdown
//! previewer would run, and a long note is cut with a count.

use assert_cmd::Command;
use std::path::Path;

// The escapes of every writer, and the page of a log at the cap.
#[path = "hardening_escape/html_memory.rs"]
mod html_memory;
#[path = "hardening_escape/writers.rs"]
mod writers;

/// A log line's op, a model's name and a producer, each hostile: an OSC
/// title change, a tag with a handler, a table breaker.
pub(crate) const OSC: &str = "\u{1b}]0;pwned\u{7}";
pub(crate) const TAG: &str = "<img src=x onerror=alert(1)>";

/// A schema-3 log of another program, with `model` and `op` as given.
pub(crate) fn foreign_log(model: &str, op: &str) -> String {
    let header = serde_json::json!({
        "kind": "header", "schema": 3, "mode": "shape-only",
        "producer": "exp <script>alert(1)</script> 1",
        "model": model, "stream_shape": [2, 4, 8], "layers": 1,
    });
    let event = |step: usize, path: &str, op: &str| {
        serde_json::json!({
            "kind": "event", "step": step, "path": path, "op": op,
            "shape": [2, 4, 8], "axes": ["B", "T", "d"], "dtype": "f32",
            "on_stream": step == 0, "departs": false, "returns": false,
            "inputs": [], "formula": "", "stats": null,
        })
    };
    [header, event(0, "input", "input"), event(1, "x|y", op)]
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// A valid log of the lesson model, as `trace --format json --values` writes it.
fn lesson_log() -> String {
    let out = run(Path::new("."), &["trace", "--format", "json", "--values"]);
    String::from_utf8(out.stdout).unwrap()
}

pub(crate) fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("shapetrace")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap()
}

/// A bad input: a name, files, the arguments, what the one line names.
struct Bad {
    name: &'static str,
    files: Vec<(&'static str, String)>,
    args: &'static [&'static str],
    needles: &'static [&'static str],
}

fn bad_inputs() -> Vec<Bad> {
    let log = lesson_log();
    let lines: Vec<&str> = log.lines().collect();
    let with_event = |event: String| {
        let mut l: Vec<String> = lines.iter().map(ToString::to_string).collect();
        l[1] = event;
        l.join("\n") + "\n"
    };
    // The same key twice: serde_json keeps the last, the others refuse.
    let dup =
        with_event(lines[1].replacen("{\"kind\":\"event\",", "{\"kind\":\"event\",\"step\":7,", 1));
    let mut e: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    e["values"][3] = serde_json::Value::Null;
    let null_value = with_event(e.to_string());
    let hostile_op = foreign_log("m", &format!("einsum{OSC}"));
    let files = |text: &String| vec![("t.jsonl", text.clone())];
    vec![
        Bad {
            name: "duplicate key, view",
            files: files(&dup),
            args: &["view", "--format", "table", "t.jsonl"],
            needles: &["t.jsonl:2:", "key 'step' appears twice", "each key once"],
        },
        Bad {
            name: "duplicate key, check --log",
            files: files(&dup),
            args: &["check", "--log", "t.jsonl"],
            needles: &["t.jsonl:2:", "key 'step' appears twice", "each key once"],
        },
        Bad {
            name: "duplicate key, stepper",
            files: files(&dup),
            args: &["view", "t.jsonl"],
            needles: &["t.jsonl:2:", "key 'step' appears twice"],
        },
        Bad {
            name: "a null among the values, view",
            files: files(&null_value),
            args: &["view", "--format", "table", "t.jsonl"],
            needles: &["t.jsonl:2:", "values[3] is null", "numbers only"],
        },
        Bad {
            name: "a null among the values, check --log",
            files: files(&null_value),
            args: &["check", "--log", "t.jsonl"],
            needles: &["t.jsonl:2:", "values[3] is null"],
        },
        Bad {
            name: "an op name with a terminal escape",
            files: files(&hostile_op),
            args: &["view", "--format", "markdown", "t.jsonl"],
            needles: &[
                "t.jsonl:3:",
                "einsum\\u{1b}]0;pwned\\u{7}",
                "printable names",
            ],
        },
        Bad {
            name: "check --log with --preset",
            files: files(&log),
            args: &["check", "--log", "t.jsonl", "--preset", "lesson-moe"],
            needles: &["--preset does not apply", "allowed with --log: --format"],
        },
        Bad {
            name: "check --log with --fault",
            files: files(&log),
            args: &["check", "--fault", "ffn-no-down", "--log", "t.jsonl"],
            needles: &["--fault does not apply"],
        },
        Bad {
            name: "check --log with --layers",
            files: files(&log),
            args: &["--layers", "3", "check", "--log", "t.jsonl"],
            needles: &["--layers does not apply"],
        },
    ]
}

#[test]
fn each_bad_input_is_one_line_exit_2_naming_it() {
    for case in bad_inputs() {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in &case.files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        let out = run(dir.path(), case.args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {err}", case.name);
        assert_eq!(err.lines().count(), 1, "{}: {err}", case.name);
        assert!(err.starts_with("shapetrace: "), "{}: {err}", case.name);
        for n in case.needles {
            assert!(err.contains(n), "{}: `{n}` not in {err}", case.name);
        }
        assert!(out.stdout.is_empty(), "{}: wrote stdout", case.name);
    }
}
