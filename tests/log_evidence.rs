//! Another program's log judged from what it holds, never from its
//! summary's verdicts: `positionwise` and `causality` from its evidence
//! lines (the probes' own judge), `op-shapes` from each torch op's
//! operands, `residual` naming the sublayer that replaced the stream.
//! Each invariant is shown holding on a small hand-made log of one block,
//! then broken by one edit.

mod common;
use common::cli;
use serde_json::{Value, json};
use shapetrace::check::{CheckName, CheckResult, Status};
use shapetrace::trace::log;

/// One event of the hand-made log: the stream is (2,4,64).
fn ev(path: &str, op: &str, shape: &[usize], inputs: &[&str], operands: Value) -> Value {
    let stream = shape == [2, 4, 64];
    let mut e = json!({
        "kind": "event", "path": path, "op": op, "shape": shape,
        "axes": vec!["?"; shape.len()], "dtype": "f32",
        "on_stream": stream && !path.contains(".attn.") && !path.contains(".mlp.c_fc"),
        "departs": !stream, "returns": false, "inputs": inputs,
        "formula": format!("{op} : …"),
        "stats": {"min": -1.0, "max": 1.0, "mean": 0.0, "std": 0.5, "finite": true},
    });
    if !operands.is_null() {
        e["operands"] = operands;
    }
    e
}

/// A correct Pre-LN block of a student's, as the exporter writes it: its
/// events (with lines, operands and args), no evidence, and a summary
/// with counts and no verdicts.
fn events() -> Vec<Value> {
    let add = |path: &str, a: &str, b: &str| {
        let mut e = ev(
            path,
            "add",
            &[2, 4, 64],
            &[a, b],
            json!([[2, 4, 64], [2, 4, 64]]),
        );
        e["check"] = json!({"stream": [2, 4, 64], "update": [2, 4, 64],
            "stream_dtype": "f32", "update_dtype": "f32", "ok": true});
        e
    };
    let mut v = vec![
        ev("input", "input", &[2, 4, 64], &[], Value::Null),
        ev(
            "block1.ln_1.layernorm",
            "layernorm",
            &[2, 4, 64],
            &["input"],
            json!([[2, 4, 64], [64], [64]]),
        ),
        ev(
            "block1.attn.c_attn.linear",
            "linear",
            &[2, 4, 192],
            &["block1.ln_1.layernorm"],
            json!([[2, 4, 64], [192, 64], [192]]),
        ),
        ev(
            "block1.attn.view",
            "view",
            &[2, 4, 4, 48],
            &["block1.attn.c_attn.linear"],
            json!([[2, 4, 192]]),
        ),
        ev(
            "block1.attn.transpose",
            "transpose",
            &[2, 4, 4, 48],
            &["block1.attn.view"],
            json!([[2, 4, 4, 48]]),
        ),
        ev(
            "block1.attn.matmul",
            "matmul",
            &[2, 4, 4, 4],
            &["block1.attn.transpose"],
            json!([[2, 4, 4, 16], [2, 4, 16, 4]]),
        ),
        ev(
            "block1.attn.masked_fill",
            "masked_fill",
            &[2, 4, 4, 4],
            &["block1.attn.matmul"],
            json!([[2, 4, 4, 4], [1, 1, 4, 4]]),
        ),
        ev(
            "block1.attn.softmax",
            "softmax",
            &[2, 4, 4, 4],
            &["block1.attn.masked_fill"],
            json!([[2, 4, 4, 4]]),
        ),
        ev(
            "block1.attn.matmul_2",
            "matmul",
            &[2, 4, 4, 16],
            &["block1.attn.softmax"],
            json!([[2, 4, 4, 4], [2, 4, 4, 16]]),
        ),
        ev(
            "block1.attn.einsum",
            "einsum",
            &[2, 4, 4, 16],
            &["block1.attn.matmul_2"],
            json!([[2, 4, 4, 16]]),
        ),
        ev(
            "block1.attn.view_2",
            "view",
            &[2, 4, 64],
            &["block1.attn.einsum"],
            json!([[2, 4, 4, 16]]),
        ),
        ev(
            "block1.attn.c_proj.linear",
            "linear",
            &[2, 4, 64],
            &["block1.attn.view_2"],
            json!([[2, 4, 64], [64, 64], [64]]),
        ),
        add("block1.resid_1", "input", "block1.attn.c_proj.linear"),
        ev(
            "block1.ln_2.mean",
            "mean",
            &[2, 4, 1],
            &["block1.resid_1"],
            json!([[2, 4, 64]]),
        ),
        ev(
            "block1.ln_2.sub",
            "sub",
            &[2, 4, 64],
            &["block1.resid_1", "block1.ln_2.mean"],
            json!([[2, 4, 64], [2, 4, 1]]),
        ),
        ev(
            "block1.mlp.c_fc.linear",
            "linear",
            &[2, 4, 256],
            &["block1.ln_2.sub"],
            json!([[2, 4, 64], [256, 64], [256]]),
        ),
        ev(
            "block1.mlp.gelu",
            "gelu",
            &[2, 4, 256],
            &["block1.mlp.c_fc.linear"],
            json!([[2, 4, 256]]),
        ),
        ev(
            "block1.mlp.c_proj.linear",
            "linear",
            &[2, 4, 64],
            &["block1.mlp.gelu"],
            json!([[2, 4, 256], [64, 256], [64]]),
        ),
        add(
            "block1.resid_2",
            "block1.resid_1",
            "block1.mlp.c_proj.linear",
        ),
        ev(
            "ln_f.layernorm",
            "layernorm",
            &[2, 4, 64],
            &["block1.resid_2"],
            json!([[2, 4, 64], [64], [64]]),
        ),
    ];
    let lines = [
        ("block1.attn.view", "stud.py:19"),
        ("block1.attn.matmul", "stud.py:20"),
        ("block1.attn.softmax", "stud.py:22"),
        ("block1.attn.c_proj.linear", "stud.py:23"),
        ("block1.ln_2.mean", "stud.py:30"),
        ("block1.mlp.c_fc.linear", "stud.py:40"),
    ];
    for e in &mut v {
        if let Some((_, l)) = lines.iter().find(|(p, _)| e["path"] == *p) {
            e["line"] = json!(l);
        }
        match e["path"].as_str().unwrap() {
            "block1.attn.view" => e["args"] = json!({"shape": [2, 4, 4, -1]}),
            "block1.attn.transpose" => e["args"] = json!({"dims": [1, 2]}),
            "block1.attn.softmax" => e["args"] = json!({"dim": -1}),
            "block1.attn.einsum" => e["args"] = json!({"equation": "bhtd->bhtd"}),
            "block1.attn.view_2" => e["args"] = json!({"shape": [2, 4, 64]}),
            "block1.attn.matmul" => {
                e["pre_mask"] = json!(true);
                e["axes"] = json!(["B", "h", "Tq", "Tk"]);
            }
            _ => {}
        }
    }
    v
}

/// The whole log: header, `events`, `evidence`, then a summary of counts
/// (from the events as given) with `checks` if any.
fn log_of(events: &[Value], evidence: &[Value], checks: Option<Value>) -> String {
    let header = json!({"kind": "header", "schema": 3, "producer": "stud_export 1 (torch 2.5.1)",
        "mode": "numeric", "stream_shape": [2, 4, 64], "layers": 1, "placement": "pre", "dtype": "f32"});
    let mut lines = vec![header.to_string()];
    for (i, e) in events.iter().enumerate() {
        let mut e = e.clone();
        e["step"] = json!(i);
        lines.push(e.to_string());
    }
    lines.extend(evidence.iter().map(Value::to_string));
    let departs = events.iter().filter(|e| e["departs"] == true).count();
    let adds = events.iter().filter(|e| e.get("check").is_some()).count();
    let mut summary = json!({"kind": "summary", "events": events.len(),
        "departures": departs, "residual_adds": adds});
    if let Some(c) = checks {
        summary["checks"] = c;
    }
    lines.push(summary.to_string());
    lines.join("\n") + "\n"
}

/// A row of evidence: `changed` lists the (batch, position) rows that
/// moved, by 0.31.
fn row(path: &str, op: &str, changed: &[(usize, usize)]) -> Value {
    let mut delta = vec![0.0; 8];
    for &(b, t) in changed {
        delta[b * 4 + t] = 0.31;
    }
    json!({"path": path, "op": op, "pre_mask": false, "batch": 2, "seq": 4, "delta": delta})
}

fn causal(token: usize, rows: Vec<Value>) -> Value {
    json!({"kind": "evidence", "probe": "causality", "module": null, "token": token, "rows": rows})
}

fn positionwise(module: &str, token: usize, rows: Vec<Value>) -> Value {
    json!({"kind": "evidence", "probe": "positionwise", "module": module, "token": token, "rows": rows})
}

/// Causality evidence that does not leak: token t moves rows t.. only.
fn causal_ok() -> Vec<Value> {
    (0..4)
        .map(|t| {
            let later: Vec<(usize, usize)> = (t..4).map(|p| (0, p)).collect();
            causal(
                t,
                vec![
                    row("block1.attn.view", "view", &later),
                    row("block1.attn.softmax", "softmax", &later),
                    row("block1.resid_2", "add", &later),
                ],
            )
        })
        .collect()
}

/// Positionwise evidence that holds: each module moves only its row.
fn positionwise_ok() -> Vec<Value> {
    (0..4)
        .flat_map(|t| {
            ["block1.ln_2", "block1.mlp"].map(|m| {
                let leaf = if m == "block1.ln_2" {
                    "block1.ln_2.sub"
                } else {
                    "block1.mlp.gelu"
                };
                positionwise(m, t, vec![row(leaf, "sub", &[(0, t)])])
            })
        })
        .collect()
}

fn read(text: &str) -> log::Replay {
    log::read(text.as_bytes(), "t.jsonl").unwrap()
}

fn checks(text: &str) -> Vec<CheckResult> {
    shapetrace::check::of_log(&read(text))
}

fn get(checks: &[CheckResult], name: CheckName) -> CheckResult {
    checks.iter().find(|c| c.name == name).unwrap().clone()
}

fn ok_evidence() -> Vec<Value> {
    let mut e = causal_ok();
    e.extend(positionwise_ok());
    e
}

/// Every new message renders in both catalogs, without a missing
/// argument or key.
fn speaks_both(c: &CheckResult) {
    let why = c.why.as_ref().expect("a catalog message");
    for lang in shapetrace::i18n::Lang::ALL {
        let text = shapetrace::why::render(lang.catalog(), why);
        assert!(text.is_ok(), "{}: {:?}: {text:?}", lang.tag(), why.key);
    }
}

#[test]
fn the_correct_log_passes_every_check_it_holds_evidence_for() {
    let text = log_of(&events(), &ok_evidence(), None);
    let all = checks(&text);
    for c in &all {
        let want = if matches!(c.name, CheckName::Params | CheckName::Reference) {
            Status::Skip
        } else {
            Status::Pass
        };
        assert_eq!(c.status, want, "{c:?}");
    }
    assert!(
        get(&all, CheckName::Causality)
            .detail
            .contains("4 tokens tried"),
        "{all:?}"
    );
    // The fields are kept as read.
    let replay = read(&text);
    assert_eq!(replay.evidence.len(), 12);
    let view = replay.trace.get("block1.attn.view").unwrap();
    assert_eq!(view.line.as_deref(), Some("stud.py:19"));
    assert_eq!(view.operands, Some(vec![vec![2, 4, 192]]));
    assert!(replay.trace.get("block1.attn.matmul").unwrap().pre_mask);
}

#[test]
fn leaking_causality_evidence_fails_naming_path_line_op_and_cause() {
    let mut evidence = causal_ok();
    // Token 2 moved row 1 of the view: an earlier position.
    evidence[2] = causal(2, vec![row("block1.attn.view", "view", &[(0, 1), (0, 2)])]);
    let c = get(
        &checks(&log_of(&events(), &evidence, None)),
        CheckName::Causality,
    );
    assert_eq!(c.status, Status::Fail, "{c:?}");
    assert_eq!(c.path.as_deref(), Some("block1.attn.view"));
    for needle in [
        "block1.attn.view: changing token 2 of batch 0 changed earlier position 1",
        "first changed by view at stud.py:19",
        "a view without its transpose: .view(B, H, T, hd) cuts positions into heads",
        ".transpose(1, 2).contiguous().view(B, T, d)",
    ] {
        assert!(c.detail.contains(needle), "{needle}: {}", c.detail);
    }
    speaks_both(&c);
    // Another batch element moved, at a softmax: its causes.
    evidence[2] = causal(2, vec![row("block1.attn.softmax", "softmax", &[(1, 3)])]);
    let c = get(
        &checks(&log_of(&events(), &evidence, None)),
        CheckName::Causality,
    );
    assert!(c.detail.contains("changed batch element 1"), "{}", c.detail);
    assert!(c.detail.contains("softmax at stud.py:22"), "{}", c.detail);
    assert!(
        c.detail.contains("use dim=-1), or no causal mask"),
        "{}",
        c.detail
    );
}

#[test]
fn pre_mask_rows_are_not_judged_by_causality() {
    let mut pre = row("block1.attn.matmul", "matmul", &[(0, 0), (0, 1), (0, 2)]);
    pre["pre_mask"] = json!(true);
    let mut evidence = causal_ok();
    evidence[2]["rows"]
        .as_array_mut()
        .unwrap()
        .insert(0, pre.clone());
    let c = get(
        &checks(&log_of(&events(), &evidence, None)),
        CheckName::Causality,
    );
    assert_eq!(c.status, Status::Pass, "{c:?}");
    // The same row, not marked pre-mask: an earlier position moved.
    pre["pre_mask"] = json!(false);
    evidence[2]["rows"][0] = pre;
    let c = get(
        &checks(&log_of(&events(), &evidence, None)),
        CheckName::Causality,
    );
    assert_eq!(c.status, Status::Fail, "{c:?}");
    assert!(c.detail.contains("matmul at stud.py:20"), "{}", c.detail);
    assert!(
        c.detail.contains("a product over the wrong axes"),
        "{}",
        c.detail
    );
}

#[test]
fn a_summary_that_disagrees_with_its_evidence_fails_either_way() {
    let verdict = |name: &str, status: &str| json!({"name": name, "ok": status != "fail", "status": status, "path": null, "detail": "as the writer said"});
    let mut leaking = ok_evidence();
    leaking[1] = causal(1, vec![row("block1.attn.softmax", "softmax", &[(0, 0)])]);
    // "pass" over leaking evidence.
    let said = json!([
        verdict("causality", "pass"),
        verdict("positionwise", "pass")
    ]);
    let all = checks(&log_of(&events(), &leaking, Some(said.clone())));
    let c = get(&all, CheckName::Causality);
    assert_eq!(c.status, Status::Fail, "{c:?}");
    assert!(
        c.detail.starts_with("the log's summary says pass, but its evidence says fail: block1.attn.softmax: changing token 1"),
        "{}",
        c.detail
    );
    speaks_both(&c);
    assert_eq!(get(&all, CheckName::Positionwise).status, Status::Pass);
    // "fail" over evidence that holds.
    let said = json!([verdict("causality", "fail")]);
    let c = get(
        &checks(&log_of(&events(), &ok_evidence(), Some(said))),
        CheckName::Causality,
    );
    assert_eq!(c.status, Status::Fail, "{c:?}");
    assert!(
        c.detail.starts_with("the log's summary says fail, but its evidence says pass: changing a token changed no earlier position"),
        "{}",
        c.detail
    );
    speaks_both(&c);
    // Agreeing, each verdict is the evidence's own.
    let said = json!([verdict("causality", "fail")]);
    let c = get(
        &checks(&log_of(&events(), &leaking, Some(said))),
        CheckName::Causality,
    );
    assert!(c.detail.starts_with("block1.attn.softmax:"), "{}", c.detail);
}

#[test]
fn a_summarys_verdict_without_evidence_is_a_skip_not_a_pass() {
    let said = json!([{"name": "causality", "ok": true, "status": "pass", "path": null, "detail": "trust me"}]);
    let all = checks(&log_of(&events(), &[], Some(said)));
    let c = get(&all, CheckName::Causality);
    assert_eq!(c.status, Status::Skip, "{c:?}");
    assert_eq!(
        c.detail,
        "the log holds no evidence for causality; its summary's \"pass\" alone is not believed"
    );
    speaks_both(&c);
    let p = get(&all, CheckName::Positionwise);
    assert_eq!(
        (p.status, p.detail.as_str()),
        (Status::Skip, "the log holds no evidence for positionwise")
    );
    // A probe the writer could not run says why.
    let skipped = json!({"kind": "evidence", "probe": "causality", "module": null,
        "skipped": "the probe's forward raised RuntimeError"});
    let c = get(
        &checks(&log_of(&events(), &[skipped], None)),
        CheckName::Causality,
    );
    assert_eq!(c.status, Status::Skip);
    assert!(
        c.detail.contains("forward raised RuntimeError"),
        "{}",
        c.detail
    );
}

#[test]
fn positionwise_evidence_names_the_module_and_the_op_inside_it() {
    let mut evidence = ok_evidence();
    // block1.ln_2 run alone: its mean over the positions moved row 0.
    evidence.push(positionwise(
        "block1.ln_2",
        1,
        vec![row("block1.ln_2.mean", "mean", &[(0, 0), (0, 1)])],
    ));
    let c = get(
        &checks(&log_of(&events(), &evidence, None)),
        CheckName::Positionwise,
    );
    assert_eq!(c.status, Status::Fail, "{c:?}");
    assert_eq!(c.path.as_deref(), Some("block1.ln_2.mean"));
    assert!(
        c.detail.starts_with(
            "block1.ln_2 run alone: block1.ln_2.mean: changing token 1 of batch 0 changed token 0 of batch 0"
        ),
        "{}",
        c.detail
    );
    assert!(
        c.detail.contains("mean at stud.py:30 inside it mixed rows: likely a reduction over the positions axis (dim=1) instead of the features (dim=-1)"),
        "{}",
        c.detail
    );
    speaks_both(&c);
}

#[test]
fn an_edited_linear_output_fails_op_shapes_and_the_unedited_passes() {
    let c = get(
        &checks(&log_of(&events(), &ok_evidence(), None)),
        CheckName::OpShapes,
    );
    assert_eq!(c.status, Status::Pass, "{c:?}");
    let mut edited = events();
    let fc = edited
        .iter_mut()
        .find(|e| e["path"] == "block1.mlp.c_fc.linear")
        .unwrap();
    fc["shape"] = json!([2, 4, 100]);
    let c = get(
        &checks(&log_of(&edited, &ok_evidence(), None)),
        CheckName::OpShapes,
    );
    assert_eq!(c.status, Status::Fail, "{c:?}");
    assert_eq!(
        c.detail,
        "block1.mlp.c_fc.linear (stud.py:40): linear of (2,4,64),(256,64),(256) gives (2,4,256), but the log records (2,4,100)"
    );
    speaks_both(&c);
    // A view asked for a shape its input cannot give.
    let mut edited = events();
    edited[3]["args"] = json!({"shape": [2, 4, 5, -1]});
    let c = get(
        &checks(&log_of(&edited, &ok_evidence(), None)),
        CheckName::OpShapes,
    );
    assert_eq!(c.status, Status::Fail, "{c:?}");
    assert!(c.detail.contains("view refuses (2,4,192)"), "{}", c.detail);
    // A transpose recorded as if it swapped other axes.
    let mut edited = events();
    edited[4]["args"] = json!({"dims": [0, 3]});
    let c = get(
        &checks(&log_of(&edited, &ok_evidence(), None)),
        CheckName::OpShapes,
    );
    assert!(c.detail.contains("gives (48,4,4,2)"), "{}", c.detail);
}

#[test]
fn a_sublayer_that_replaced_the_stream_is_named_with_its_line() {
    // x = self.attn(self.ln_1(x)): no resid_1, the MLP's norm reads the
    // attention's output.
    let mut v: Vec<Value> = events()
        .into_iter()
        .filter(|e| e["path"] != "block1.resid_1")
        .collect();
    for e in &mut v {
        let p = e["path"].as_str().unwrap().to_string();
        if p == "block1.attn.c_proj.linear" {
            e["replaces_stream"] = json!("block1.attn");
        }
        for i in e["inputs"].as_array_mut().unwrap() {
            if i == "block1.resid_1" {
                *i = json!("block1.attn.c_proj.linear");
            }
        }
    }
    let c = get(&checks(&log_of(&v, &[], None)), CheckName::Residual);
    assert_eq!(c.status, Status::Fail, "{c:?}");
    assert_eq!(
        c.detail,
        "block1.attn's output replaced the stream at stud.py:23: write x = x + self.attn(self.ln_1(x)) (1 residual adds, expected 2, 2 per block; block1 makes 1)"
    );
    speaks_both(&c);
    // With the line of the block's forward that called the sublayer
    // (`replaced_at`), that line is named, not the sublayer's own last.
    for e in &mut v {
        if e["path"] == "block1.attn.c_proj.linear" {
            e["replaced_at"] = json!("stud.py:50");
        }
    }
    let c = get(&checks(&log_of(&v, &[], None)), CheckName::Residual);
    assert!(
        c.detail
            .starts_with("block1.attn's output replaced the stream at stud.py:50: write"),
        "{}",
        c.detail
    );
    // The reader keeps it: a log written back holds it beside `replaces_stream`.
    let kept = read(&log_of(&v, &[], None));
    let e = kept
        .trace
        .events
        .iter()
        .find(|e| e.path == "block1.attn.c_proj.linear")
        .unwrap();
    assert_eq!(e.replaced_at.as_deref(), Some("stud.py:50"));
    let back = serde_json::to_value(e).unwrap();
    assert_eq!(back["replaced_at"], "stud.py:50");
    let other = serde_json::to_value(&kept.trace.events[0]).unwrap();
    assert!(other.get("replaced_at").is_none(), "{other}");
    // Without the writer's word, the count alone, per block.
    for e in &mut v {
        let o = e.as_object_mut().unwrap();
        o.remove("replaces_stream");
        o.remove("replaced_at");
    }
    let c = get(&checks(&log_of(&v, &[], None)), CheckName::Residual);
    assert_eq!(c.status, Status::Fail);
    assert!(c.detail.contains("block1 makes 1"), "{}", c.detail);
}

#[test]
fn a_summary_count_the_events_do_not_hold_fails_its_check() {
    let text = log_of(&events(), &ok_evidence(), None)
        .replace("\"residual_adds\":2", "\"residual_adds\":3");
    let all = checks(&text);
    let c = get(&all, CheckName::Residual);
    assert_eq!(c.status, Status::Fail, "{c:?}");
    assert_eq!(
        c.detail,
        "the log's summary says 3 residual_adds, its events hold 2"
    );
    speaks_both(&c);
    let text = log_of(&events(), &ok_evidence(), None).replace("\"events\":20", "\"events\":21");
    assert_eq!(
        get(&checks(&text), CheckName::OpShapes).status,
        Status::Fail
    );
}

/// `check --log` exits 1 on leaking evidence, `view` shows the judged
/// verdict (not the summary's) and each step's line.
#[test]
fn the_commands_judge_and_show_the_evidence() {
    let said = json!([{"name": "causality", "ok": true, "status": "pass", "path": null, "detail": "trust me"}]);
    let mut leaking = ok_evidence();
    leaking[3] = causal(3, vec![row("block1.attn.view", "view", &[(0, 0)])]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.jsonl");
    std::fs::write(&file, log_of(&events(), &leaking, Some(said))).unwrap();
    let f = file.to_str().unwrap();
    let (code, out, err) = cli(&["check", "--log", f]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("✗ causality"), "{out}");
    let (code, table, err) = cli(&["view", f, "--format", "table"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        table.contains("✗ causality") && !table.contains("trust me"),
        "{table}"
    );
    assert!(table.contains("view at stud.py:19"), "{table}");
    // The stepper's detail pane says where the step ran.
    let replay = read(&std::fs::read_to_string(&file).unwrap());
    let mut app =
        shapetrace::tui::app::App::replay(replay, "t.jsonl", shapetrace::tui::theme::MONO);
    assert!(
        app.run
            .checks
            .iter()
            .any(|c| c.name == CheckName::Causality && !c.ok)
    );
    for _ in 0..3 {
        app.update(shapetrace::tui::action::Action::Next);
    }
    let screen = common::screen_of(&app, 120, 36);
    assert!(
        screen.contains("block1.attn.view · view · at stud.py:19"),
        "{screen}"
    );
    std::fs::write(&file, log_of(&events(), &ok_evidence(), None)).unwrap();
    let (code, out, _) = cli(&["check", "--log", f]);
    assert_eq!(code, Some(0), "{out}");
}

#[test]
fn a_bad_evidence_line_is_refused_in_one_line_naming_it() {
    let bad = [
        (
            json!({"kind": "evidence", "probe": "causality", "module": null, "token": 1,
                "rows": [{"path": "block1.attn.view", "op": "view", "batch": 2, "seq": 4, "delta": vec![0.0; 7]}]}),
            "evidence row block1.attn.view has 7 deltas for batch 2 × seq 4; allowed: batch × seq",
        ),
        (
            json!({"kind": "evidence", "probe": "causalty", "module": null, "token": 1, "rows": []}),
            "unknown probe 'causalty'; allowed: causality, positionwise",
        ),
        (
            json!({"kind": "evidence", "probe": "causality", "module": null, "token": -1, "rows": []}),
            "evidence token -1 is negative",
        ),
        (
            json!({"kind": "evidence", "probe": "causality", "module": null, "token": 1,
                "rows": [{"path": "p", "op": "view", "batch": 1, "seq": 4, "delta": [0.0, -0.5, 0.0, 0.0]}]}),
            "evidence row p has delta -0.5",
        ),
        (
            json!({"kind": "evidence", "probe": "causality", "module": null, "token": 9, "rows": []}),
            "evidence token 9 is outside the sequence",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.jsonl");
    let f = file.to_str().unwrap();
    for (line, needle) in bad {
        std::fs::write(&file, log_of(&events(), &[line], None)).unwrap();
        for args in [
            &["check", "--log", f][..],
            &["view", "--format", "table", f][..],
        ] {
            let (code, out, err) = cli(args);
            assert_eq!(code, Some(2), "{needle}: {out}{err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{err}");
            assert!(
                err.contains("t.jsonl:22: ") && err.contains(needle),
                "{needle}: {err}"
            );
        }
    }
}

/// The events of `events()` changed by `edit`, each by its path.
fn edited(edit: impl Fn(&str, &mut Value)) -> Vec<Value> {
    let mut v = events();
    for e in &mut v {
        let p = e["path"].as_str().unwrap().to_string();
        edit(&p, e);
    }
    v
}

/// `.view(B, H, T, hd)` without its transpose: the scores are heads
/// against heads, and causality names the view that cut them, after the
/// op that first moved an earlier position.
#[test]
fn causality_names_the_view_that_cut_the_heads_when_the_scores_are_not_tq_tk() {
    let tell = "; the scores at stud.py:20 are (B, T, h, h), heads against heads, not (B, h, Tq, Tk): the heads were cut at stud.py:19 without transpose(1, 2)";
    // The merge moved position 1 when token 2 moved.
    let mut evidence = causal_ok();
    evidence[2] = causal(
        2,
        vec![row("block1.attn.view_2", "view", &[(0, 1), (0, 2)])],
    );
    let cut = edited(|p, e| match p {
        // The split, named by dataflow: its second axis is still T.
        "block1.attn.view" => e["axes"] = json!(["B", "T", "h", "hd"]),
        // q read straight from the view, k through its transpose.
        "block1.attn.matmul" => {
            e["inputs"] = json!(["block1.attn.view", "block1.attn.transpose"]);
            e["axes"] = json!(["B", "T", "h", "h"]);
            e.as_object_mut().unwrap().remove("pre_mask");
        }
        "block1.attn.view_2" => e["line"] = json!("stud.py:25"),
        _ => {}
    });
    let c = get(
        &checks(&log_of(&cut, &evidence, None)),
        CheckName::Causality,
    );
    assert_eq!(c.status, Status::Fail, "{c:?}");
    assert!(
        c.detail
            .contains("first changed by view at stud.py:25: likely"),
        "{}",
        c.detail
    );
    assert!(c.detail.ends_with(tell), "{}", c.detail);
    speaks_both(&c);
    // A transpose between the scores and the view: the view is not named.
    let through = edited(|p, e| match p {
        "block1.attn.view" => e["axes"] = json!(["B", "T", "h", "hd"]),
        "block1.attn.matmul" => {
            e["axes"] = json!(["B", "T", "h", "h"]);
            e.as_object_mut().unwrap().remove("pre_mask");
        }
        _ => {}
    });
    let c = get(
        &checks(&log_of(&through, &evidence, None)),
        CheckName::Causality,
    );
    assert_eq!(c.status, Status::Fail, "{c:?}");
    assert!(!c.detail.contains("the scores at"), "{}", c.detail);
    // Scores of (Tq, Tk): no tell, the first clause alone.
    let c = get(
        &checks(&log_of(&events(), &evidence, None)),
        CheckName::Causality,
    );
    assert_eq!(c.status, Status::Fail, "{c:?}");
    assert!(!c.detail.contains("the scores at"), "{}", c.detail);
}

/// The forward stopped at a residual add of (2,4,64) + (2,4,256): the
/// failure names its operands, and `residual` the line of the one off
/// (B,T,d).
#[test]
fn a_stopped_residual_add_names_the_line_of_its_operand_off_the_stream() {
    let mut v: Vec<Value> = events()
        .into_iter()
        .take_while(|e| e["path"] != "block1.mlp.c_proj.linear")
        .collect();
    for e in &mut v {
        if e["path"] == "block1.mlp.gelu" {
            e["line"] = json!("stud.py:41");
        }
    }
    let failure = json!({"kind": "failure", "step": v.len(), "path": "block1.resid_2", "op": "add",
        "check": "residual",
        "detail": "residual add (2,4,64) + (2,4,256): both operands must be (2,4,64) (at stud.py:50)",
        "operands": [{"path": "block1.resid_1", "shape": [2, 4, 64], "dtype": "f32"},
                     {"path": "block1.mlp.gelu", "shape": [2, 4, 256], "dtype": "f32"}]});
    let text = log_of(&v, &[], None);
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines.insert(lines.len() - 1, failure.to_string());
    let c = get(&checks(&(lines.join("\n") + "\n")), CheckName::Residual);
    assert_eq!(c.status, Status::Fail, "{c:?}");
    assert_eq!(
        c.detail,
        "block1.resid_2: residual add (2,4,64) + (2,4,256): both operands must be (2,4,64) (at stud.py:50); the update block1.mlp.gelu (2,4,256) comes from stud.py:41"
    );
    speaks_both(&c);
}

/// `x = LN(x + f(x))` in a model declared Pre-LN: `wiring` names the
/// norm the add reads as its stream, and the norm's line.
#[test]
fn a_residual_add_onto_a_norms_output_names_the_norms_line() {
    let v = edited(|p, e| match p {
        "block1.ln_2.mean" => {
            *e = ev(
                "block1.ln_2.layernorm",
                "layernorm",
                &[2, 4, 64],
                &["block1.resid_1"],
                json!([[2, 4, 64], [64], [64]]),
            );
            e["line"] = json!("stud.py:30");
        }
        "block1.ln_2.sub" => {
            e["inputs"] = json!(["block1.resid_1", "block1.ln_2.layernorm"]);
            e["operands"] = json!([[2, 4, 64], [2, 4, 64]]);
        }
        "block1.resid_2" => {
            e["inputs"] = json!(["block1.ln_2.layernorm", "block1.mlp.c_proj.linear"]);
        }
        _ => {}
    });
    let c = get(&checks(&log_of(&v, &[], None)), CheckName::Wiring);
    assert_eq!(c.status, Status::Fail, "{c:?}");
    assert_eq!(
        c.detail,
        "block1.resid_2 adds onto block1.ln_2.layernorm at stud.py:30, a norm's output: a Pre-LN stream carries the sum x + f(LN(x)) itself, not a normed sum"
    );
    speaks_both(&c);
}

/// A step computed from no activation (a rotary table, a mask: `inputs:
/// []`) between the embedding and block 1 is not the output block 1 must
/// read: that is the embedding's.
#[test]
fn a_constant_before_a_block_is_not_its_previous_output() {
    let mut v = events();
    let embed = ev(
        "model.embed.mul",
        "mul",
        &[2, 4, 64],
        &["input"],
        json!([[2, 4, 64], []]),
    );
    let cos = ev(
        "model.rotary_emb.cos",
        "cos",
        &[1, 4, 16],
        &[],
        json!([[1, 4, 16]]),
    );
    v.splice(1..1, [embed, cos]);
    for e in &mut v {
        if e["path"] == "block1.ln_1.layernorm" {
            e["inputs"] = json!(["model.embed.mul"]);
        }
        if e["path"] == "block1.resid_1" {
            e["inputs"][0] = json!("model.embed.mul");
        }
    }
    let c = get(&checks(&log_of(&v, &[], None)), CheckName::Wiring);
    assert_eq!(c.status, Status::Pass, "{c:?}");
    // Block 1 reading the constant itself is still refused.
    for e in &mut v {
        if e["path"] == "block1.ln_1.layernorm" {
            e["inputs"] = json!(["model.rotary_emb.cos"]);
        }
    }
    let c = get(&checks(&log_of(&v, &[], None)), CheckName::Wiring);
    assert_eq!(c.status, Status::Fail, "{c:?}");
    assert_eq!(
        c.detail,
        "block1 reads model.rotary_emb.cos at block1.ln_1.layernorm, expected the previous output model.embed.mul"
    );
    // The exporter's log of a transformers Llama: its rotary tables and
    // mask come between the embedding and block 1.
    let llama = log::read_file(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/exported/llama-tiny.jsonl"
    )))
    .unwrap();
    let c = get(&shapetrace::check::of_log(&llama), CheckName::Wiring);
    assert_eq!(c.status, Status::Pass, "{c:?}");
}
