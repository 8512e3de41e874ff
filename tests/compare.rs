//! `shapetrace compare`: two models aligned step by step, and their counts.

mod common;
use serde_json::Value;

fn compare_json(args: &[&str]) -> Value {
    let mut all = vec!["compare"];
    all.extend_from_slice(args);
    all.extend(["--format", "json"]);
    let (code, out, err) = common::cli(&all);
    assert_eq!(code, Some(0), "{err}");
    serde_json::from_str(&out).unwrap()
}

fn step<'a>(c: &'a Value, path: &str) -> &'a Value {
    c["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["path"] == path)
        .unwrap_or_else(|| panic!("no {path}"))
}

/// Pre-LN against Post-LN: every shape is the same, so the difference is
/// the wiring. Each norm reads another tensor and stands elsewhere in the
/// order; the projections after it read the block's input instead.
#[test]
fn pre_against_post_ln_marks_the_norms_though_every_shape_is_the_same() {
    let c = compare_json(&["lesson", "lesson-post-ln"]);
    let steps = c["steps"].as_array().unwrap();
    assert!(steps.iter().all(|s| {
        !s["changes"]
            .as_array()
            .unwrap()
            .contains(&Value::from("shape"))
    }));
    assert_eq!(c["summary"]["only_left"], 0);
    for n in ["block1.ln_1", "block1.ln_2", "block2.ln_1", "block2.ln_2"] {
        let s = step(&c, n);
        assert_eq!(s["status"], "changed", "{n}");
        assert_eq!(
            s["changes"],
            serde_json::json!(["inputs", "position"]),
            "{n}"
        );
        assert_ne!(s["left"]["inputs"], s["right"]["inputs"]);
    }
    assert_eq!(
        step(&c, "block1.ln_1")["left"]["inputs"],
        serde_json::json!(["input"])
    );
    assert_eq!(
        step(&c, "block1.ln_1")["right"]["inputs"],
        serde_json::json!(["block1.resid_1"])
    );
    assert_eq!(
        step(&c, "block1.attn.q_proj")["changes"],
        serde_json::json!(["inputs"])
    );
    assert_eq!(step(&c, "block1.attn.scores")["status"], "same");
    assert_eq!(c["counts"][0]["delta"], 0, "the same parameters");
}

/// MHA against GQA: k and v have 2 heads, not 4; the repeats are the
/// right model's alone; the parameters fall by 2·L·(d + 1)·(d − kv·hd).
#[test]
fn mha_against_gqa_shows_the_kv_heads_and_the_parameter_difference() {
    let c = compare_json(&["lesson", "lesson-gqa"]);
    for kv in ["block1.attn.k", "block1.attn.v"] {
        let s = step(&c, kv);
        assert_eq!(s["left"]["shape"], serde_json::json!([2, 4, 4, 16]));
        assert_eq!(s["right"]["shape"], serde_json::json!([2, 2, 4, 16]));
        assert_eq!(s["changes"], serde_json::json!(["shape"]));
    }
    assert_eq!(step(&c, "block1.attn.k_rep")["status"], "only-right");
    assert!(step(&c, "block1.attn.k_rep")["left"].is_null());
    let (l, r) = (
        shapetrace::Budget::of(&shapetrace::config::preset::by_name("lesson").unwrap()).unwrap(),
        shapetrace::Budget::of(&shapetrace::config::preset::by_name("lesson-gqa").unwrap())
            .unwrap(),
    );
    let params = &c["counts"][0];
    assert_eq!(params["what"], "parameters");
    assert_eq!(params["left"], l.total);
    assert_eq!(params["right"], r.total);
    let (layers, d, kv) = (2i64, 64i64, 32i64);
    assert_eq!(params["delta"], -2 * layers * (d + 1) * (d - kv));
    assert!(
        params["right_formula"]
            .as_str()
            .unwrap()
            .contains("L·block")
    );
}

/// A model against itself is the same everywhere; a fault that keeps
/// every shape (merge-no-transpose) is found as the op it changes.
#[test]
fn a_model_is_the_same_as_itself_and_a_reshape_is_an_op_change() {
    let c = compare_json(&["lesson", "lesson"]);
    let n = c["steps"].as_array().unwrap().len();
    assert_eq!(c["summary"]["same"], n);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.toml");
    std::fs::write(&file, "fault = \"merge-no-transpose\"\n").unwrap();
    let c = compare_json(&["lesson", file.to_str().unwrap()]);
    let merge = step(&c, "block1.attn.merge");
    assert_eq!(merge["changes"], serde_json::json!(["op"]));
    assert_eq!(
        (&merge["left"]["op"], &merge["right"]["op"]),
        (&Value::from("merge_heads"), &Value::from("reshape"))
    );
}

/// The table says every difference in words and glyphs; markdown is a
/// handout table; --out writes the file.
#[test]
fn table_and_markdown_say_each_difference_in_words() {
    let (code, out, err) = common::cli(&["compare", "lesson", "lesson-gqa"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with(
            "lesson vs lesson-gqa: 25 same, 12 changed, 0 only in lesson, 4 only in lesson-gqa"
        ),
        "{out}"
    );
    for part in [
        "≠ shape",
        "only lesson-gqa ▶",
        "(B=2,kv=2,T=4,hd=16)",
        "reads block1.attn.q, block1.attn.k_rep",
        "(−8,320)",
    ] {
        assert!(out.contains(part), "{part}\n{out}");
    }
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("c.md");
    let (code, _, err) = common::cli(&[
        "compare",
        "lesson",
        "lesson-post-ln",
        "--format",
        "markdown",
        "--out",
        md.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(
        text.contains(
            "| path | lesson | lesson reads | lesson-post-ln | lesson-post-ln reads | status |"
        ),
        "{text}"
    );
    assert!(text.contains("| block1.ln_1 | `(2,4,64)` f32 | input | `(2,4,64)` f32 | block1.resid_1 | ≠ inputs, position |"), "{text}");
}

/// Model flags apply to both sides; a name that is neither a preset nor a
/// file, and the flags that name a model, are refused in one line.
#[test]
fn flags_apply_to_both_and_bad_names_are_refused() {
    let c = compare_json(&["lesson", "lesson-gqa", "--seq", "3"]);
    assert_eq!(
        step(&c, "input")["left"]["shape"],
        serde_json::json!([2, 3, 64])
    );
    assert_eq!(
        step(&c, "input")["right"]["shape"],
        serde_json::json!([2, 3, 64])
    );
    for (args, want) in [
        (
            &["compare", "lesson", "nope"][..],
            "compare RIGHT 'nope': neither a preset nor a model file",
        ),
        (
            &["compare", "lesson", "lesson-gqa", "--preset", "lesson"][..],
            "--preset does not apply",
        ),
        (
            &["compare", "lesson", "lesson-gqa", "--heads", "5"][..],
            "not divisible by heads 5",
        ),
    ] {
        let (code, _, err) = common::cli(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(want), "{err}");
    }
}

/// A side whose forward stops is named with where; its output file may
/// not be one of its sides.
#[test]
fn a_stopped_side_is_named_and_an_output_may_not_overwrite_a_side() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.toml");
    std::fs::write(&file, "fault = \"bias-w1-64\"\n").unwrap();
    let c = compare_json(&["lesson", file.to_str().unwrap()]);
    let stop = c["right_stopped"].as_str().unwrap();
    assert!(stop.contains("at block1.mlp.up"), "{stop}");
    assert!(c["left_stopped"].is_null());
    let (code, out, _) = common::cli(&["compare", "lesson", file.to_str().unwrap()]);
    assert_eq!(code, Some(0));
    assert!(out.lines().next().unwrap().contains("✗ "), "{out}");
    let (code, _, err) = common::cli(&[
        "compare",
        file.to_str().unwrap(),
        "lesson",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "fault = \"bias-w1-64\"\n",
        "the side is untouched"
    );
}

/// The binary with `args` in `dir`, `stdin` piped in: code, stdout, stderr.
fn cli_in(dir: &std::path::Path, args: &[&str], stdin: &str) -> (Option<i32>, String, String) {
    let o = assert_cmd::Command::cargo_bin("shapetrace")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (o.status.code(), text(&o.stdout), text(&o.stderr))
}

/// `-` is standard input for one side, as for every input file; both
/// sides on `-` are refused in one line.
#[test]
fn a_side_may_be_standard_input_once() {
    let dir = tempfile::tempdir().unwrap();
    let fault = "fault = \"merge-no-transpose\"\n";
    let args = ["compare", "lesson", "-", "--format", "json"];
    let (code, out, err) = cli_in(dir.path(), &args, fault);
    assert_eq!(code, Some(0), "{err}");
    let c: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        step(&c, "block1.attn.merge")["changes"],
        serde_json::json!(["op"])
    );
    assert_eq!(c["right"], "-");
    let (code, _, err) = cli_in(dir.path(), &["compare", "-", "-"], fault);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("both read standard input"), "{err}");
}

/// compare traces shapes only: --numeric is refused by name in one line
/// (exit 2); --shape-only, what it does anyway, is not, nor --max-memory,
/// which bounds its traces.
#[test]
fn numeric_is_refused_and_shape_only_is_allowed() {
    let (code, _, err) = common::cli(&["compare", "lesson", "lesson-gqa", "--numeric"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(
            "compare traces shapes only, so --numeric does not apply; allowed: --shape-only"
        ),
        "{err}"
    );
    for flags in [&["--shape-only"][..], &["--max-memory", "1GiB"]] {
        let mut args = vec!["lesson", "lesson-gqa"];
        args.extend_from_slice(flags);
        let c = compare_json(&args);
        assert_eq!(c["summary"]["only_right"], 4, "{flags:?}");
    }
}

/// A file named like a preset (`lesson` in the working folder): the name
/// is the preset, and a note on stderr says so and how to name the file
/// (`./lesson`), which is then read.
#[test]
fn a_file_named_like_a_preset_is_said_not_silently_shadowed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("lesson"),
        "fault = \"merge-no-transpose\"\n",
    )
    .unwrap();
    let args = ["compare", "lesson", "./lesson", "--format", "json"];
    let (code, out, err) = cli_in(dir.path(), &args, "");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        err.trim_end(),
        "shapetrace: note: compare LEFT 'lesson' is the preset lesson, not the file of that name here; for the file give ./lesson"
    );
    let c: Value = serde_json::from_str(&out).unwrap();
    // Left the preset, right the file with its fault.
    assert_eq!(
        step(&c, "block1.attn.merge")["changes"],
        serde_json::json!(["op"])
    );
    let (code, _, err) = cli_in(dir.path(), &["compare", "./lesson", "lesson-gqa"], "");
    assert_eq!(code, Some(0), "{err}");
    assert!(err.is_empty(), "no note for ./lesson: {err}");
}
