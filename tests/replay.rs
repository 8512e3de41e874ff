//! `view` replays what a log recorded: its events and its summary's
//! verdicts, never a re-judged model; a log that ends without its summary
//! opens with a note saying so.

use assert_cmd::Command;
mod common;

use shapetrace::check::influence::{Kind, Subject, influence};
use shapetrace::trace::log;
use shapetrace::tui::app::App;
use shapetrace::tui::theme::MONO;

fn lesson_log(args: &[&str]) -> String {
    let out = Command::cargo_bin("shapetrace")
        .unwrap()
        .args(["trace", "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

fn view_table(log: &str) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.jsonl"), log).unwrap();
    let out = Command::cargo_bin("shapetrace")
        .unwrap()
        .current_dir(dir.path())
        .args(["view", "t.jsonl", "--format", "table"])
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The verdicts shown are the recorded ones: a detail edited in the log
/// shows as edited, and a failing verdict a model would not give shows.
#[test]
fn view_shows_the_summarys_verdicts_not_new_ones() {
    let log = lesson_log(&[]);
    let edited = log.replacen(
        "\"name\":\"wiring\",\"ok\":true,\"status\":\"pass\",\"path\":null,\"detail\":\"",
        "\"name\":\"wiring\",\"ok\":false,\"status\":\"fail\",\"path\":\"block2.ln_1\",\"detail\":\"recorded: ",
        1,
    );
    assert_ne!(edited, log, "the lesson log has a wiring verdict");
    let (code, out, err) = view_table(&edited);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("✗ wiring"), "{out}");
    assert!(out.contains("recorded: "), "{out}");
    assert!(!out.contains("✓ wiring"), "{out}");
}

/// A log cut at a line boundary, before its summary: the table opens with
/// the note, and no verdict is made up.
#[test]
fn a_log_without_its_summary_opens_with_a_note() {
    let log = lesson_log(&[]);
    let cut: Vec<&str> = log.lines().take(21).collect();
    let (code, out, err) = view_table(&(cut.join("\n") + "\n"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.lines().next(),
        Some("incomplete log: 20 events, no summary")
    );
    assert!(
        !out.contains("checks hold") && !out.contains("✓ op-shapes"),
        "{out}"
    );
    // The whole log opens without it.
    let (_, whole, _) = view_table(&log);
    assert!(whole.starts_with("step"), "{whole}");
}

/// In the stepper the note is on the status line, and the footer says
/// there are no verdicts instead of "all 0 checks hold".
#[test]
fn the_stepper_shows_an_incomplete_log_as_such() {
    let log = lesson_log(&[]);
    let cut: String = log.lines().take(11).map(|l| format!("{l}\n")).collect();
    let replay = log::read(cut.as_bytes(), "cut.jsonl").unwrap();
    let app = App::replay(replay, "cut.jsonl", MONO);
    let screen = common::screen_of(&app, 100, 30);
    assert!(
        screen.contains("incomplete log: 10 events, no summary"),
        "{screen}"
    );
    assert!(screen.contains("no verdicts recorded"), "{screen}");
    assert!(!screen.contains("checks hold"), "{screen}");
}

/// A check's detail is the tool's own text: shown whole (escaped, never
/// cut), so the numbers at its end stay, in `check` and in `view`.
#[test]
fn check_details_are_shown_whole() {
    let out = Command::cargo_bin("shapetrace")
        .unwrap()
        .args(["check", "--fault", "no-causal-mask"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("causality"))
        .expect("a causality line");
    assert!(
        line.contains("(|Δ| up to ") && line.ends_with(')'),
        "{line}"
    );
    assert!(!text.contains(" chars)"), "{text}");
    let (code, table, err) = view_table(&lesson_log(&[]));
    assert_eq!(code, 0, "{err}");
    assert!(table.contains("(4 tokens tried)"), "{table}");
    assert!(!table.contains(" chars)"), "{table}");
}

/// `view` replays without building a model: a header edited to a model
/// the tool would refuse to build (heads that do not divide d_model, no
/// heads at all, a billion layers) still replays every event and the
/// summary's verdicts, as a table and in the stepper, whose diagram draws
/// from the recorded anatomy.
#[test]
fn view_replays_a_log_whose_header_is_an_impossible_model() {
    let log = lesson_log(&[]);
    let (_, whole, _) = view_table(&log);
    let events = log.lines().count() - 2;
    for (from, to) in [
        ("\"heads\":4,", "\"heads\":3,"),
        ("\"heads\":4,", "\"heads\":0,"),
        ("\"layers\":2,", "\"layers\":1000000000,"),
    ] {
        let header = log.lines().next().unwrap();
        assert!(header.contains(from), "{header}");
        let edited = log.replacen(from, to, 1);
        let (code, table, err) = view_table(&edited);
        assert_eq!(code, 0, "{to}: {err}");
        assert!(table.contains("✓ causality"), "{to}: {table}");
        assert_eq!(
            table.lines().filter(|l| l.contains("block")).count(),
            whole.lines().filter(|l| l.contains("block")).count(),
            "{to}"
        );
        let replay = log::read(edited.as_bytes(), "edited.jsonl").unwrap();
        assert_eq!(replay.trace.events.len(), events, "{to}");
        assert_eq!(replay.checks.as_ref().map(Vec::len), Some(10), "{to}");
        // The Probes tab's re-run and the Budget tab refuse such a model
        // with a reason; neither builds it.
        let cfg = &replay.trace.config;
        let probed = influence(Subject::seeded(cfg), Kind::Causality, &[0]);
        assert!(probed.is_err(), "{to}");
        assert!(shapetrace::Budget::of(cfg).is_err(), "{to}");
        let mut app = App::replay(replay, "edited.jsonl", MONO);
        for _ in 0..20 {
            app.update(shapetrace::tui::action::Action::Next);
        }
        // The head keys on a header of 0 heads.
        app.update(shapetrace::tui::action::Action::NextHead);
        app.update(shapetrace::tui::action::Action::PrevHead);
        let screen = common::screen_of(&app, 100, 30);
        assert!(screen.contains("resid_2"), "{to}: {screen}");
        assert!(screen.contains("all 10 checks hold"), "{to}: {screen}");
    }
}

/// The recorded anatomy is read, not built, so it is checked: a block
/// that reads x0 out of range, a sublayer listed twice, none at all, or a
/// field the tool does not know is refused with the line and the reason.
#[test]
fn a_logged_anatomy_the_tool_cannot_draw_is_refused() {
    let log = lesson_log(&[]);
    let sub = r#"{"kind":"attn","norm":"before"},{"kind":"mlp","norm":"before"}"#;
    assert!(log.lines().next().unwrap().contains(sub));
    for (edit, needle) in [
        (
            log.replacen(
                r#""mask":"causal""#,
                r#""mask":"causal","reads_input":0"#,
                1,
            ),
            "reads_input is 0",
        ),
        (
            log.replacen(
                sub,
                r#"{"kind":"attn","norm":"before"},{"kind":"attn","norm":"before"}"#,
                1,
            ),
            "sublayer attn twice",
        ),
        (log.replacen(sub, "", 1), "0 sublayers"),
        (
            log.replacen(
                r#""mask":"causal""#,
                r#""mask":"causal","residual":"parallel""#,
                1,
            ),
            "unknown field",
        ),
    ] {
        assert_ne!(edit, log);
        let err = log::read(edit.as_bytes(), "t.jsonl")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("t.jsonl:1: ") && err.contains(needle),
            "{err}"
        );
    }
}

/// The JSON events carry every axis's source, the why's key and
/// arguments, and its words; the scores' and weights' axes are Tq and Tk.
#[test]
fn json_events_carry_sources_and_why_with_tq_tk() {
    let log = lesson_log(&[]);
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["schema"], log::SCHEMA);
    let event = |path: &str| {
        lines
            .iter()
            .find(|l| l["path"] == path)
            .unwrap_or_else(|| panic!("{path} in the log"))
    };
    for path in ["block1.attn.scores", "block1.attn.weights"] {
        assert_eq!(
            event(path)["axes"],
            serde_json::json!(["B", "h", "Tq", "Tk"])
        );
    }
    for path in ["block1.attn.q", "block1.attn.k", "block1.attn.context"] {
        assert_eq!(
            event(path)["axes"],
            serde_json::json!(["B", "h", "T", "hd"])
        );
    }
    let q = event("block1.attn.q");
    assert_eq!(
        q["sources"][3],
        serde_json::json!({"axis": "hd", "size": 16, "from": "d / heads = 64 / 4"})
    );
    assert_eq!(q["why"]["key"], "why-split");
    assert_eq!(q["why"]["args"]["heads"], 4);
    assert!(
        q["why_text"]
            .as_str()
            .unwrap()
            .starts_with("d_model 64 = 4 heads × 16")
    );
    // A log read back keeps them.
    let replay = log::read(log.as_bytes(), "t.jsonl").unwrap();
    let scores = replay.trace.get("block1.attn.scores").unwrap();
    assert!(scores.why_text().contains("not (2,4,64)"));
    assert_eq!(scores.sources[3].from, "T of block1.attn.k");
}

/// A schema-1 log (written before whys) still replays: its whys are
/// empty, its scores' axes read Tq and Tk, its failure reads too.
#[test]
fn a_schema_1_log_still_replays() {
    for (file, events) in [("lesson-v1.jsonl", 37), ("ffn-no-down-v1.jsonl", 17)] {
        let path = std::path::Path::new("tests/fixtures").join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("{\"kind\":\"header\",\"schema\":1,"));
        let replay = log::read_file(&path).unwrap();
        assert_eq!(replay.trace.events.len(), events, "{file}");
        assert!(
            replay
                .trace
                .events
                .iter()
                .all(|e| e.why_text().is_empty() && e.why.is_none())
        );
        let scores = replay.trace.get("block1.attn.scores").unwrap();
        assert_eq!(scores.named_shape(), "(B=2,h=4,Tq=4,Tk=4)");
        if let Some(f) = &replay.trace.failure {
            assert!(f.why_text().is_empty() && f.why.is_none());
        }
        let (code, out, err) = view_table(&text);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("(B=2,h=4,Tq=4,Tk=4)"), "{out}");
    }
    // A version the reader does not know is refused, naming those it takes.
    let text = std::fs::read_to_string("tests/fixtures/lesson-v1.jsonl").unwrap();
    let (code, _, err) = view_table(&text.replacen("\"schema\":1", "\"schema\":5", 1));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("schema 5 is not supported; allowed: 1, 2, 3, 4"),
        "{err}"
    );
}

/// A bad line is named by the file's line and the column within it,
/// never serde's "line 2 column 0" past the line's end.
#[test]
fn a_bad_log_line_names_its_file_line_and_column() {
    let good = lesson_log(&[]);
    let first = good.lines().next().unwrap();
    // Line 2 cut short: the object never closes.
    let cut = format!("{first}\n{{\"kind\":\"event\"\n");
    let (code, _, err) = view_table(&cut);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("t.jsonl:2:15: EOF while parsing an object"),
        "{err}"
    );
    assert!(
        !err.contains("line 2 column 0") && !err.contains(" at line "),
        "{err}"
    );
    // A bad token in the middle of line 2: its column.
    let (_, _, err) = view_table(&format!("{first}\n{{\"kind\": x}}\n"));
    assert!(err.contains("t.jsonl:2:10: expected value"), "{err}");
    // A line that parses but does not fit the schema has no column.
    let (_, _, err) = view_table(&format!("{first}\n{{\"kind\":\"event\"}}\n"));
    assert!(err.contains("t.jsonl:2: missing field"), "{err}");
}

/// A key given twice in a log line is refused with its line and column,
/// by the one reader `view` and `check --log` share (serde_json alone
/// keeps the last copy).
#[test]
fn a_key_given_twice_is_refused_by_the_reader() {
    let log = lesson_log(&[]);
    let twice = log.replacen(
        "\"kind\":\"event\",\"step\":0,",
        "\"kind\":\"event\",\"step\":0,\"path\":\"x\",",
        1,
    );
    assert_ne!(twice, log);
    let err = log::read(twice.as_bytes(), "t.jsonl")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("t.jsonl:2:"), "{err}");
    assert!(
        err.ends_with("key 'path' appears twice; allowed: each key once"),
        "{err}"
    );
    let nested = log.replacen(
        "\"stream_dtype\":\"f32\",",
        "\"stream_dtype\":\"f32\",\"stream_dtype\":\"f32\",",
        1,
    );
    assert_ne!(nested, log);
    let err = log::read(nested.as_bytes(), "t.jsonl")
        .unwrap_err()
        .to_string();
    assert!(err.contains("key 'stream_dtype' appears twice"), "{err}");
}
