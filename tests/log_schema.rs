//! The published trace format: every line shapetrace writes conforms to
//! `assets/trace-log.schema.json`, as do the logs of students' own PyTorch
//! modules written by `scripts/shapetrace_export.py`; a line that breaks
//! the schema is refused by it. `check --log` then judges such a log from
//! its events alone.

mod common;
use common::cli;
use serde_json::Value;

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/trace-log.schema.json"
    ))
    .unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema")
}

/// The lines of `text` that do not conform, with the schema's first error.
fn nonconforming(v: &jsonschema::Validator, text: &str) -> Vec<String> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let value: Value = serde_json::from_str(line).unwrap();
            let first = v.iter_errors(&value).next()?;
            Some(format!("line {}: {first}", i + 1))
        })
        .collect()
}

#[test]
fn every_log_shapetrace_writes_conforms() {
    let v = validator();
    let runs: &[&[&str]] = &[
        &[],
        &["--values"],
        &["--preset", "lesson-lm"],
        &["--preset", "lesson-bf16"],
        &["--fault", "ffn-no-down"],
        &["--dtype", "bf16", "--fault", "norm-no-cast-back"],
        &["--preset", "gpt2-small", "--shape-only"],
        &["--preset", "lesson-gqa", "--act", "swiglu", "--d-ff", "171"],
        &["--preset", "lesson-moe"],
        &["--preset", "lesson-moe", "--shape-only"],
        &["--preset", "lesson-moe", "--fault", "moe-capacity"],
    ];
    for args in runs {
        let mut all = vec!["trace", "--format", "json"];
        all.extend_from_slice(args);
        let (code, out, err) = cli(&all);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        let bad = nonconforming(&v, &out);
        assert!(bad.is_empty(), "{args:?}: {bad:?}");
    }
}

#[test]
fn a_line_that_breaks_the_schema_is_refused_by_it() {
    let v = validator();
    let (_, out, _) = cli(&["trace", "--format", "json"]);
    let event = out.lines().nth(1).unwrap();
    for (what, from, to) in [
        ("an unknown dtype", "\"dtype\":\"f32\"", "\"dtype\":\"f8\""),
        (
            "a shape of text",
            "\"shape\":[2,4,64]",
            "\"shape\":\"(2,4,64)\"",
        ),
        ("no shape", "\"shape\":[2,4,64],", ""),
        ("an unknown kind", "\"kind\":\"event\"", "\"kind\":\"evnt\""),
    ] {
        let broken = event.replacen(from, to, 1);
        assert_ne!(broken, event, "{what}");
        assert!(
            !nonconforming(&v, &broken).is_empty(),
            "{what} passed: {broken}"
        );
    }
}

#[test]
fn the_students_exported_logs_conform() {
    let v = validator();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/students");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let bad = nonconforming(&v, &text);
        assert!(bad.is_empty(), "{}: {bad:?}", path.display());
        n += 1;
    }
    assert_eq!(n, 6, "six student logs");
}
