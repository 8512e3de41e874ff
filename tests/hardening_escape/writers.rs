//! Names from a log, a config.json and a checkpoint's file name, each
//! hostile, as every writer shows them.

use super::{OSC, TAG, foreign_log, run};

/// What no writer may let through: a control character (other than the
/// line breaks and tabs of its own layout), and in Markdown a raw tag.
fn assert_clean(what: &str, text: &str, markdown: bool) {
    let bad = text
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\n' | '\t'));
    assert_eq!(bad, None, "{what}: a control character in {text:?}");
    if markdown {
        for tag in ["<script", "<img", "</script"] {
            assert!(!text.contains(tag), "{what}: {tag} in {text}");
        }
    }
}

#[test]
fn names_from_a_log_are_escaped_in_every_view() {
    let dir = tempfile::tempdir().unwrap();
    let log = foreign_log(&format!("m{OSC}{TAG}"), &format!("{TAG}`|"));
    std::fs::write(dir.path().join("t.jsonl"), log).unwrap();
    for format in ["table", "markdown", "html"] {
        let out = run(dir.path(), &["view", "--format", format, "t.jsonl"]);
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(0), "{format}: {:?}", out.stderr);
        let page = format == "html";
        assert_clean(format, &text, format == "markdown");
        if page {
            assert!(!text.contains("<img") && !text.contains("<script>alert"));
            assert!(text.contains("m\\u{1b}]0;pwned\\u{7}&lt;img src=x"));
        }
    }
    let md = run(dir.path(), &["view", "--format", "markdown", "t.jsonl"]);
    let md = String::from_utf8(md.stdout).unwrap();
    // The op's cell: the tag as entities, the backtick and pipe escaped,
    // and the row keeps its seven cells.
    let row = md.lines().find(|l| l.starts_with("| 1 |")).unwrap();
    assert!(
        row.contains("&lt;img src=x onerror=alert(1)&gt;\\`\\|"),
        "{row}"
    );
    assert!(row.contains("x\\|y"), "{row}");
    assert!(
        md.contains("# shapetrace: m\\\\u{1b}\\]0;pwned\\\\u{7}&lt;img"),
        "{md}"
    );
    assert!(
        md.contains("exp &lt;script&gt;alert(1)&lt;/script&gt; 1"),
        "{md}"
    );
    let table = run(dir.path(), &["view", "--format", "table", "t.jsonl"]);
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(table.contains(&format!("{TAG}`|")), "{table}");
    let check = run(dir.path(), &["check", "--log", "t.jsonl"]);
    assert_clean(
        "check --log",
        &String::from_utf8_lossy(&check.stdout),
        false,
    );
}

/// A checkpoint named with a terminal escape, read off its shapes: the
/// note on stderr and `check`'s headline on stdout show it escaped.
#[cfg(unix)]
#[test]
fn a_weights_file_name_is_escaped_in_the_note_and_the_headline() {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("w{OSC}.safetensors");
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/nanogpt-tiny.safetensors"
        ),
        dir.path().join(&name),
    )
    .unwrap();
    let out = run(dir.path(), &["check", "--weights", &name, "--heads", "4"]);
    let (stdout, stderr) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_clean("headline", &stdout, false);
    assert_clean("note", &stderr, false);
    let shown = "w\\u{1b}]0;pwned\\u{7}.safetensors";
    assert!(
        stdout.starts_with(&format!("{shown} (no fault)")),
        "{stdout}"
    );
    assert!(
        stderr.contains(&format!(
            "{shown}: no config.json beside it, so the model is read off its shapes"
        )),
        "{stderr}"
    );
}

/// 20,000 unknown fields in a config.json: the note names the first few
/// (escaped) and counts the rest, on one short line.
#[test]
fn a_note_of_many_unknown_fields_is_cut_with_a_count() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/hf-gpt2-lm-config.json"
    ))
    .unwrap();
    let mut c: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text).unwrap();
    c.insert(format!("a{OSC}{TAG}"), 1.into());
    for i in 0..20_000 {
        c.insert(format!("unk_{i:05}"), 1.into());
    }
    std::fs::write(
        dir.path().join("config.json"),
        serde_json::to_string(&c).unwrap(),
    )
    .unwrap();
    let out = run(dir.path(), &["params", "--config", "config.json"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_clean("note", &err, false);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.len() < 1000, "{} bytes: {err}", err.len());
    assert!(err.contains("a\\u{1b}]0;pwned\\u{7}<img"), "{err}");
    assert!(err.contains("unk_00008, … and 19,991 more"), "{err}");
}

/// A checkpoint with 100,000 tensors the model has no place for: the
/// refusal lists the first few and counts the rest.
#[test]
fn a_refusal_of_many_unknown_tensors_is_cut_with_a_count() {
    let dir = tempfile::tempdir().unwrap();
    let b = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/nanogpt-tiny.safetensors"
    ))
    .unwrap();
    let n = usize::try_from(u64::from_le_bytes(b[..8].try_into().unwrap())).unwrap();
    let mut header: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&b[8..8 + n]).unwrap();
    let data = &b[8 + n..];
    let extra = 100_000;
    for i in 0..extra {
        let at = data.len() + 4 * i;
        header.insert(
            format!("zz.{i}"),
            serde_json::json!({"dtype": "F32", "shape": [1], "data_offsets": [at, at + 4]}),
        );
    }
    let h = serde_json::to_vec(&header).unwrap();
    let file = [
        &u64::try_from(h.len()).unwrap().to_le_bytes()[..],
        &h,
        data,
        &vec![0u8; 4 * extra],
    ]
    .concat();
    std::fs::write(dir.path().join("many.safetensors"), file).unwrap();
    let out = run(
        dir.path(),
        &["check", "--weights", "many.safetensors", "--heads", "4"],
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1);
    assert!(err.len() < 1000, "{} bytes", err.len());
    assert!(
        err.contains("100000 tensor problems: unknown zz.0 (1); "),
        "{err}"
    );
    assert!(err.ends_with("… and 99,990 more\n"), "{err}");
}

/// A model file named with a tag: compare's markdown shows it as entities
/// in the title, the table's header and the counts, never as a tag.
#[test]
fn a_model_file_name_is_escaped_in_compares_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("{TAG}`|.toml");
    std::fs::write(dir.path().join(&name), "d_model = 8\nheads = 2\n").unwrap();
    let out = run(
        dir.path(),
        &["compare", &name, "lesson", "--format", "markdown"],
    );
    assert_eq!(out.status.code(), Some(0), "{:?}", out.stderr);
    let md = String::from_utf8(out.stdout).unwrap();
    assert_clean("compare markdown", &md, true);
    assert!(
        md.starts_with("# &lt;img src=x onerror=alert(1)&gt;\\`\\|.toml vs lesson"),
        "{md}"
    );
    // Each table row keeps its cells: no bare `|` from the name.
    let header = md.lines().find(|l| l.starts_with("| path |")).unwrap();
    assert_eq!(header.matches(" | ").count(), 5, "{header}");
}
