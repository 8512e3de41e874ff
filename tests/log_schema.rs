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

/// The schema and the reader say the same of `values`: `null` (none kept)
/// conforms and is read as none; a `null` among them (a NaN that JSON
/// cannot write) breaks the schema and is refused by its index.
#[test]
fn the_schema_and_the_reader_agree_on_null_values() {
    let v = validator();
    let (_, out, _) = cli(&["trace", "--format", "json", "--values"]);
    let lines: Vec<&str> = out.lines().collect();
    let mut event: Value = serde_json::from_str(lines[1]).unwrap();
    let read = |event: &Value| {
        let mut l: Vec<String> = lines.iter().map(ToString::to_string).collect();
        l[1] = event.to_string();
        let text = l.join("\n");
        shapetrace::trace::log::read(text.as_bytes(), "t.jsonl")
    };
    assert!(read(&event).unwrap().trace.events[0].values.is_some());
    event["values"][3] = Value::Null;
    assert!(!nonconforming(&v, &event.to_string()).is_empty());
    let err = read(&event).unwrap_err().to_string();
    assert!(
        err.starts_with("t.jsonl:2: values[3] is null; allowed: numbers only"),
        "{err}"
    );
    event["values"] = Value::Null;
    assert!(nonconforming(&v, &event.to_string()).is_empty());
    assert!(read(&event).unwrap().trace.events[0].values.is_none());
}
