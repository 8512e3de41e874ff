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
        &["--preset", "lesson-lm", "--backward", "--values"],
        &["--backward", "--fault", "softmax-grad-no-sub"],
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

/// The lines of the exporter's log of hf-llama-tiny (made by the exporter
/// that writes evidence and no verdicts) conform: its events' `line`,
/// `operands`, `args` and `pre_mask`, its evidence lines, its summary
/// without `checks`.
#[test]
fn the_exporters_log_with_evidence_conforms() {
    let v = validator();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/exported/llama-tiny.jsonl"
    ))
    .unwrap();
    let bad = nonconforming(&v, &text);
    assert!(bad.is_empty(), "{bad:?}");
    let kinds: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(kinds.iter().any(|l| l["kind"] == "evidence"));
    assert!(
        kinds
            .iter()
            .any(|l| l["kind"] == "event" && l.get("operands").is_some())
    );
    let summary = kinds.last().unwrap();
    assert!(summary["kind"] == "summary" && summary.get("checks").is_none());
}

/// A log as another program writes it, by hand: every new event field,
/// evidence of both probes (one skipped) and a summary of counts alone
/// conform, and the reader reads them; each line the reader refuses for
/// its evidence or summary, the schema refuses too.
#[test]
fn evidence_and_the_new_event_fields_conform_as_the_reader_reads_them() {
    let v = validator();
    let (_, out, _) = cli(&["trace", "--format", "json"]);
    let mut lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    lines[0]["producer"] = "stud_export 1 (torch 2.5.1)".into();
    let seq = lines[0]["stream_shape"][1].as_u64().unwrap() as usize;
    let batch = lines[0]["stream_shape"][0].as_u64().unwrap() as usize;
    let e = &mut lines[2];
    e["line"] = "stud.py:19".into();
    e["operands"] = serde_json::json!([[2, 4, 64], [64], [64]]);
    e["args"] = serde_json::json!({"dim": -1});
    e["replaces_stream"] = "block1.attn".into();
    e["replaced_at"] = "stud.py:23".into();
    e["pre_mask"] = true.into();
    let summary = lines.pop().unwrap();
    let row = serde_json::json!({"path": lines[2]["path"], "op": "layernorm", "pre_mask": false,
        "batch": batch, "seq": seq, "delta": vec![0.0; batch * seq]});
    let evidence = [
        serde_json::json!({"kind": "evidence", "probe": "causality", "module": null, "token": 1, "rows": [row]}),
        serde_json::json!({"kind": "evidence", "probe": "positionwise", "module": "block1.mlp", "token": 0, "rows": []}),
        serde_json::json!({"kind": "evidence", "probe": "causality", "module": null, "skipped": "the probe's forward raised"}),
    ];
    lines.extend(evidence.iter().cloned());
    let mut counts = summary.clone();
    counts.as_object_mut().unwrap().remove("checks");
    lines.push(counts);
    let text = |lines: &[Value]| {
        lines
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let good = text(&lines);
    assert!(
        nonconforming(&v, &good).is_empty(),
        "{:?}",
        nonconforming(&v, &good)
    );
    let replay = shapetrace::trace::log::read(good.as_bytes(), "t.jsonl").unwrap();
    assert_eq!(replay.evidence.len(), 3);
    assert_eq!(
        replay.trace.events[1].replaced_at.as_deref(),
        Some("stud.py:23")
    );
    // Each edit breaks both the schema and the reader.
    let at = lines.len() - 4;
    let edits: [(&str, usize, Value); 6] = [
        (
            "an unknown probe",
            at,
            serde_json::json!({"kind": "evidence", "probe": "causalty", "module": null, "token": 1, "rows": []}),
        ),
        (
            "a skipped probe with a token",
            at,
            serde_json::json!({"kind": "evidence", "probe": "causality", "module": null, "token": 1, "skipped": "why"}),
        ),
        (
            "a run without rows",
            at,
            serde_json::json!({"kind": "evidence", "probe": "causality", "module": null, "token": 1}),
        ),
        (
            "a negative delta",
            at,
            serde_json::json!({"kind": "evidence", "probe": "causality", "module": null, "token": 1,
            "rows": [{"path": "p", "op": "view", "batch": 1, "seq": 1, "delta": [-0.5]}]}),
        ),
        (
            "positionwise without its module",
            at,
            serde_json::json!({"kind": "evidence", "probe": "positionwise", "module": null, "token": 1, "rows": []}),
        ),
        ("a summary's unknown field", lines.len() - 1, {
            let mut s = lines[lines.len() - 1].clone();
            s["verdict"] = "pass".into();
            s
        }),
    ];
    for (what, i, line) in edits {
        let mut broken = lines.clone();
        broken[i] = line;
        let t = text(&broken);
        assert!(
            !nonconforming(&v, &t).is_empty(),
            "{what}: the schema took it"
        );
        assert!(
            shapetrace::trace::log::read(t.as_bytes(), "t.jsonl").is_err(),
            "{what}: the reader took it"
        );
    }
    // A verdict without its detail: the reader refuses it, and so does the schema.
    let mut broken = lines.clone();
    let last = broken.len() - 1;
    broken[last]["checks"] =
        serde_json::json!([{"name": "causality", "ok": true, "status": "pass"}]);
    let t = text(&broken);
    assert!(!nonconforming(&v, &t).is_empty());
    assert!(shapetrace::trace::log::read(t.as_bytes(), "t.jsonl").is_err());
}

/// The Python to run the exporter with (`$SHAPETRACE_PYTHON`, able to
/// import torch), or `None` after a `skipped:` line.
fn python() -> Option<std::path::PathBuf> {
    let py = std::env::var_os("SHAPETRACE_PYTHON").filter(|p| !p.is_empty());
    let ok = py.as_ref().is_some_and(|py| {
        std::process::Command::new(py)
            .args(["-c", "import torch"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !ok {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "skipped: freshly exported logs: SHAPETRACE_PYTHON is unset or cannot import torch"
        );
        return None;
    }
    py.map(Into::into)
}

/// Logs exported afresh by `scripts/shapetrace_export.py` conform, with
/// their evidence, the stream a sublayer replaced (`replaces_stream`,
/// `replaced_at`) and a failure where the forward stopped. Skipped
/// without a Python with torch (`$SHAPETRACE_PYTHON`).
#[test]
fn freshly_exported_logs_conform() {
    let Some(py) = python() else { return };
    let v = validator();
    let dir = tempfile::tempdir().unwrap();
    let mut kinds = std::collections::BTreeSet::new();
    let mut fields = std::collections::BTreeSet::new();
    for file in ["forgot_attn_residual", "mlp_no_down"] {
        let out = dir.path().join(format!("{file}.jsonl"));
        let export = std::process::Command::new(&py)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .arg("scripts/shapetrace_export.py")
            .arg(format!("scripts/students/{file}.py:Model"))
            .args(["--input", "2,4,64", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            matches!(export.status.code(), Some(0 | 1)),
            "{file}: {}",
            String::from_utf8_lossy(&export.stderr)
        );
        let text = std::fs::read_to_string(&out).unwrap();
        let bad = nonconforming(&v, &text);
        assert!(bad.is_empty(), "{file}: {bad:?}");
        for l in text.lines() {
            let l: Value = serde_json::from_str(l).unwrap();
            kinds.insert(l["kind"].as_str().unwrap().to_string());
            fields.extend(l.as_object().unwrap().keys().cloned());
        }
    }
    for k in ["header", "event", "failure", "evidence", "summary"] {
        assert!(kinds.contains(k), "no {k} line: {kinds:?}");
    }
    for f in ["line", "operands", "replaces_stream", "replaced_at"] {
        assert!(fields.contains(f), "no {f}: {fields:?}");
    }
}

/// The published schema lists exactly the roles shapetrace knows: a role
/// added to `Role` and not to the schema (or the other way) fails here.
#[test]
fn the_schema_lists_every_role() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/trace-log.schema.json"
    ))
    .unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let listed: Vec<&str> = schema["$defs"]["event"]["properties"]["role"]["enum"]
        .as_array()
        .expect("the event's role is an enum")
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let known: Vec<&str> = shapetrace::trace::Role::ALL
        .iter()
        .map(|r| r.as_str())
        .collect();
    assert_eq!(listed, known);
}
