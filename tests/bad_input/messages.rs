//! Bad-input cases of the hardening family "messages": user strings shown
//! escaped and cut, never stripped; clap's errors naming the flag; the
//! config.json/TOML choice; ambiguous files refused. The table runner also
//! checks that no case's stderr holds a raw escape byte.

use super::{Case, case, fixture_with, npy, with_file};
use assert_cmd::Command;

/// A .npy of version `major.0` with `header` and `data` zero bytes.
fn npy_raw(major: u8, header: &str, data: usize) -> Vec<u8> {
    let len = u16::try_from(header.len()).unwrap().to_le_bytes();
    [
        &[0x93, b'N', b'U', b'M', b'P', b'Y', major, 0][..],
        &len,
        header.as_bytes(),
        &vec![0u8; data],
    ]
    .concat()
}

/// The bytes of (2, 4, 64) f32 values.
const DATA: usize = 2 * 4 * 64 * 4;

const GPT2_JSON: &str =
    r#"{"model_type":"gpt2","n_embd":64,"n_head":4,"n_layer":1,"vocab_size":10,"n_positions":8}"#;

#[rustfmt::skip]
pub fn cases() -> Vec<Case> {
    let long = "x".repeat(100_000);
    let long_preset: &'static str = Box::leak(long.into_boxed_str());
    let twice = GPT2_JSON.replacen(r#""n_embd":64"#, r#""n_embd":64,"n_embd":32"#, 1);
    let npy_good = npy("<f4", "(2, 4, 64)", 2 * 4 * 64 * 4);
    let mut version9 = npy_good.clone();
    version9[6] = 9;
    vec![
        // Escaped, never stripped or passed through raw.
        case("preset with an escape", &["check", "--preset", "\u{1b}[2Jxx"], &["unknown preset '\\u{1b}[2Jxx'", "gpt2-small"]),
        with_file(case("preset with an escape in a model file", &["check", "--config", "p.toml"], &["unknown preset '\\u{1b}[2J'", "lesson"]), "p.toml", "preset = \"\\u001b[2J\"\n"),
        case("missing config path with an escape", &["check", "--config", "no\u{1b}[2J.toml"], &["no\\u{1b}[2J.toml"]),
        with_file(case("config file name with an escape", &["params", "--config", "c\u{1b}[2J.json"], &["c\\u{1b}[2J.json", "heads"]), "c\u{1b}[2J.json", GPT2_JSON.replace("\"n_head\":4", "\"n_head\":3")),
        with_file(case("model_type with an escape", &["check", "--config", "c.json"], &["model_type '\\u{1b}]0;x\\u{7}'", "gpt2"]), "c.json", r#"{"model_type":"\u001b]0;x\u0007"}"#),
        case("fault name with a bidi override", &["check", "--fault", "a\u{202e}b"], &["'a\\u{202e}b'", "ffn-no-down"]),
        case("lesson input with an escape", &["ffn", "--x", "1,\u{1b}[2J"], &["'\\u{1b}[2J' in x = 1,\\u{1b}[2J", "finite numbers"]),
        case("memory size with an escape", &["check", "--max-memory", "4\u{1b}XB"], &["memory size '4\\u{1b}XB'", "4GiB"]),
        case("a very long value is cut with its length", &["check", "--preset", long_preset], &["… (100000 chars)", "lesson"]),
        // clap's errors, one line naming the flag and the value as given.
        case("value with a newline", &["check", "--batch", "2\n"], &["'2\\n'", "--batch"]),
        case("value with an escape is not stripped", &["check", "--d-model", "6\u{1b}[2J4"], &["'6\\u{1b}[2J4'", "--d-model"]),
        case("missing required argument", &["view", "--format", "table"], &["missing required argument", "FILE.jsonl"]),
        case("flag given twice", &["trace", "--out", "a.jsonl", "--out", "b.jsonl"], &["--out <FILE> is given twice", "once"]),
        case("flag without its value", &["trace", "--format"], &["--format", "needs a value", "json"]),
        // config.json or TOML, by content.
        with_file(case("config.json with a byte-order mark", &["check", "--config", "c.json"], &["c.json", "missing field 'n_embd'"]), "c.json", "\u{feff}{\"model_type\":\"gpt2\"}"),
        with_file(case("config.json that is an array", &["check", "--config", "c.json"], &["c.json", "must be a JSON object, found an array"]), "c.json", "[]"),
        with_file(case("npy of 20,000 dimensions is named cut", &["check", "--input", "x.npy"], &["--input is (1,1,1,", "… (40001 chars)", "rank-3"]), "x.npy", npy_raw(1, &format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}), }}\n", vec!["1"; 20_000].join(", ")), 4)),
        // Ambiguity refused.
        with_file(case("config.json with a key twice", &["check", "--config", "c.json"], &["c.json", "'n_embd' appears twice"]), "c.json", twice),
        with_file(case("safetensors with a tensor named twice", &["check", "--weights", "w.safetensors", "--heads", "4"], &["w.safetensors", "names a tensor twice", "h.0.ln_1.weight"]), "w.safetensors", fixture_with(b"h.0.ln_2.weight", b"h.0.ln_1.weight")),
        with_file(case("npy of version 9.0", &["check", "--input", "x.npy"], &["x.npy", "version 9.0", "1.0, 2.0, 3.0"]), "x.npy", version9),
        with_file(case("npy header with an expression", &["check", "--input", "x.npy"], &["x.npy", "found `*1, 4, 64)"]), "x.npy", npy_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2*1, 4, 64), }\n", DATA)),
        with_file(case("npy header with an extra key", &["check", "--input", "x.npy"], &["x.npy", "unknown key 'extra'"]), "x.npy", npy_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4, 64), 'extra': 1}\n", DATA)),
        with_file(case("npy header with a key twice", &["check", "--input", "x.npy"], &["x.npy", "'shape' appears twice"]), "x.npy", npy_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4, 64), 'shape': (2, 4, 64)}\n", DATA)),
    ]
}

/// Runs `args` in `dir` and returns stdout; the command must succeed.
fn stdout(dir: &std::path::Path, args: &[&str]) -> String {
    let out = Command::cargo_bin("shapetrace")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn file_names_reach_stdout_escaped_and_hostile_log_strings_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let name = "c\u{1b}[2J.json";
    std::fs::write(dir.path().join(name), GPT2_JSON).unwrap();
    for sub in ["params", "check"] {
        let out = stdout(dir.path(), &[sub, "--config", name]);
        assert!(out.contains("gpt2 (c\\u{1b}[2J.json)"), "{sub}: {out}");
        assert!(!out.contains('\u{1b}'), "{sub}: {out:?}");
    }
    // A log whose path holds an escape, or whose event lists 100,000
    // dims, is refused in one short line naming it escaped.
    let log = super::lesson_log();
    let lines: Vec<String> = log.lines().map(String::from).collect();
    let dims = vec!["1"; 100_000].join(",");
    let hostile = [
        (
            2,
            lines[2].replacen("\"path\":\"", "\"path\":\"\\u001b[2J", 1),
            "\\u{1b}[2J",
        ),
        (
            3,
            lines[3].replacen("\"shape\":[", &format!("\"shape\":[{dims},"), 1),
            "100003 axes",
        ),
    ];
    for (at, line, needle) in hostile {
        let mut l = lines.clone();
        l[at] = line;
        std::fs::write(dir.path().join("t.jsonl"), l.join("\n")).unwrap();
        let out = Command::cargo_bin("shapetrace")
            .unwrap()
            .current_dir(dir.path())
            .args(["view", "t.jsonl", "--format", "table"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(needle), "{err}");
        assert!(!err.contains('\u{1b}') && err.len() < 400, "{err:?}");
    }
}

#[test]
fn the_steppers_header_and_status_show_a_log_name_escaped() {
    let run = shapetrace::run(&shapetrace::ModelConfig::default()).unwrap();
    let replay = shapetrace::trace::log::Replay {
        trace: run.trace,
        checks: Some(run.checks),
        producer: None,
        evidence: Vec::new(),
        counts: None,
    };
    let app =
        shapetrace::tui::app::App::replay(replay, "a\u{1b}[2Jb", shapetrace::tui::theme::MONO);
    let screen = super::common::screen_of(&app, 100, 24);
    assert!(screen.contains("▷ a\\u{1b}[2Jb"), "{screen}");
    assert!(screen.contains("replaying a\\u{1b}[2Jb"), "{screen}");
}

#[cfg(unix)]
#[test]
fn a_file_name_that_is_not_utf8_is_named_by_its_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"c\xff.json");
    std::fs::write(dir.path().join(name), GPT2_JSON).unwrap();
    let out = Command::cargo_bin("shapetrace")
        .unwrap()
        .current_dir(dir.path())
        .arg("params")
        .arg("--config")
        .arg(name)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("gpt2 (c\\xff.json)"), "{text}");
}
