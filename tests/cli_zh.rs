//! The command line speaks the language of `--lang` (or the locale): under
//! zh-TW every header, label, verdict and check detail of `check`,
//! `params`, `trace` and `faults`, and the frequent refusals, are Chinese.
//!
//! The test of "Chinese": a line may hold ASCII words of 4+ letters only
//! when each is an identifier: a check's, an op's, a fault's or a
//! preset's name, a flag, a tensor path (which holds `.`, `_` or digits),
//! or one of a few names (LayerNorm, nanoGPT, FLOPs). The same test is
//! shown to fail on the English output.

use std::collections::BTreeSet;
use std::process::Command;

/// stdout and stderr of the binary run with `args` and the extra
/// environment `env`; LC_ALL, LC_MESSAGES and LANG are cleared first.
fn run(args: &[&str], env: &[(&str, &str)]) -> (String, String, Option<i32>) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_shapetrace"));
    cmd.args(args)
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env_remove("LANG");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("the binary runs");
    (
        String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        String::from_utf8(out.stderr).expect("UTF-8 stderr"),
        out.status.code(),
    )
}

/// The identifiers a Chinese line may still hold.
fn identifiers() -> BTreeSet<String> {
    let mut ids: BTreeSet<String> = [
        "shapetrace",
        "lesson",
        "LayerNorm",
        "RMSNorm",
        // The lesson keeps the norms' names; a norm of either kind is Norm.
        "Norm",
        "nanoGPT",
        "FLOPs",
        "help",
        "input",
        "true",
        "false",
        // The formulas' variables, the lesson's notation in every
        // language: L·block, 2·L·kv·hd·bytes.
        "block",
        "bytes",
        // Flag values: --format's.
        "text",
        "json",
        "table",
        "markdown",
        "html",
        "JSON",
        // Names in code the faults' words quote: PyTorch's and MPI's.
        "BatchNorm",
        "irecv",
        "wait",
        // The subcommands.
        "trace",
        "check",
        "params",
        "norms",
        "probes",
        "view",
        "compare",
        "faults",
        // The collectives and what a split model's names hold: a
        // pipeline's send and recv, an all-to-all's dispatch and return,
        // the logits, the GPipe schedule.
        "send",
        "recv",
        "dispatch",
        "return",
        "logits",
        "GPipe",
        // --pos-emb's values.
        "rope",
        "alibi",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    ids.extend(
        shapetrace::check::CheckName::ALL
            .iter()
            .map(|c| c.as_str().to_string()),
    );
    ids.extend(
        shapetrace::config::Fault::ALL
            .iter()
            .map(|f| f.as_str().to_string()),
    );
    ids.extend(
        shapetrace::config::preset::PRESETS
            .iter()
            .map(|(n, _)| (*n).to_string()),
    );
    // Op names as the trace labels them (layernorm, linear, softmax …).
    for preset in ["lesson", "lesson-swiglu", "lesson-lm"] {
        let cfg = shapetrace::config::preset::by_name(preset).unwrap();
        let run = shapetrace::run(&cfg).unwrap();
        ids.extend(run.trace.events.iter().map(|e| e.op_label().to_string()));
    }
    ids
}

/// The words of `text` that are English prose, not identifiers: runs of
/// ASCII letters of 4 or more, standing alone (not inside a path, a flag,
/// a shape or a name with digits), that are not identifiers.
fn english_words(text: &str, ids: &BTreeSet<String>) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        // A value the user gave, quoted back, is theirs: 'yaml'.
        let line: String = line
            .split('\'')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, p)| p)
            .collect::<Vec<_>>()
            .join("''");
        let line = line.as_str();
        // Tokens: maximal runs of ASCII letters, digits and `_ . - / = < >`;
        // one touching `·` or `(` is code or a formula (weights·v, tril(…)).
        let is_part = |c: char| c.is_ascii_alphanumeric() || "_.-/=<>".contains(c);
        let chars: Vec<char> = line.chars().collect();
        let mut tokens = Vec::new();
        let mut start = 0;
        while start < chars.len() {
            if !is_part(chars[start]) {
                start += 1;
                continue;
            }
            let end = (start..chars.len())
                .find(|&i| !is_part(chars[i]))
                .unwrap_or(chars.len());
            let before = start.checked_sub(1).map(|i| chars[i]);
            let after = chars.get(end).copied();
            let code = before == Some('·') || matches!(after, Some('·' | '('));
            if !code {
                tokens.push(chars[start..end].iter().collect::<String>());
            }
            start = end;
        }
        for t in &tokens {
            // A flag (--fault) or a path's prefix (block.) is an identifier.
            if t.starts_with("--") || t.ends_with('.') {
                continue;
            }
            let t = t.trim_matches('-');
            let word = t.chars().all(|c| c.is_ascii_alphabetic());
            if word && t.len() >= 4 && !ids.contains(t) {
                found.push(format!("{t}  ‹{line}›"));
            }
        }
    }
    found
}

fn assert_chinese(what: &str, text: &str, ids: &BTreeSet<String>) {
    assert!(
        text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
        "{what}: no Chinese at all:\n{text}"
    );
    let english = english_words(text, ids);
    assert!(
        english.is_empty(),
        "{what}: English words left:\n{}",
        english.join("\n")
    );
}

const ZH_FLAG: &[(&str, &str)] = &[];
const ZH_ENV: &[(&str, &str)] = &[("LANG", "zh_TW.UTF-8")];

/// The commands this file holds to Chinese, with `--lang zh-TW` added or not.
fn commands(flag: bool) -> Vec<Vec<&'static str>> {
    let mut cmds = vec![
        vec!["check"],
        vec!["check", "--fault", "no-causal-mask"],
        vec!["trace"],
        vec!["params"],
        vec!["params", "--preset", "gpt2-small"],
        // Split over devices: the vocabulary, the pipeline, the
        // communication; experts; grouped K/V heads and a window.
        vec![
            "params",
            "--layers",
            "2",
            "--pp",
            "2",
            "--tp",
            "2",
            "--vocab",
            "97",
            "--pad-vocab",
        ],
        vec!["params", "--preset", "lesson-moe", "--ep", "2"],
        vec!["params", "--window", "2", "--kv-heads", "2"],
        vec!["faults"],
    ];
    if flag {
        for c in &mut cmds {
            c.extend(["--lang", "zh-TW"]);
        }
    }
    cmds
}

#[test]
fn check_trace_params_and_faults_speak_chinese_by_flag_and_by_locale() {
    let ids = identifiers();
    for (flag, env) in [(true, ZH_FLAG), (false, ZH_ENV)] {
        for args in commands(flag) {
            let (out, err, code) = run(&args, env);
            assert!(code == Some(0) || code == Some(1), "{args:?}: {err}");
            assert_chinese(&format!("{args:?} {env:?}"), &out, &ids);
            assert!(err.is_empty(), "{args:?}: {err}");
        }
    }
}

#[test]
fn the_english_output_fails_the_same_test() {
    let ids = identifiers();
    for args in commands(false) {
        let (out, _, _) = run(&args, &[]);
        assert!(
            !english_words(&out, &ids).is_empty(),
            "{args:?}: the test finds no English in English output:\n{out}"
        );
    }
    // And --lang en wins over a Chinese locale.
    let (out, _, _) = run(&["check", "--lang", "en"], ZH_ENV);
    assert!(
        out.starts_with("lesson (no fault): all 10 checks hold"),
        "{out}"
    );
}

#[test]
fn refusals_speak_chinese() {
    let ids = identifiers();
    for args in [
        // An unknown value of a flag.
        vec!["trace", "--fault", "no-mask"],
        vec!["check", "--format", "yaml"],
        vec!["--preset", "nope", "check"],
        // A conflict.
        vec!["faults", "--seq", "8"],
        vec!["check", "--shape-only", "--numeric"],
        vec!["trace", "--values"],
        // An unknown flag.
        vec!["check", "--nope"],
    ] {
        for env in [ZH_ENV, ZH_FLAG] {
            let mut args = args.clone();
            if env.is_empty() {
                args.extend(["--lang", "zh-TW"]);
            }
            let (_, err, code) = run(&args, env);
            assert_eq!(code, Some(2), "{args:?}: {err}");
            assert!(err.starts_with("shapetrace: "), "{args:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert_chinese(&format!("{args:?}"), &err, &ids);
        }
    }
}

/// Bad inputs the library itself refuses (a file, the token ids, the
/// model's sizes, a model file's values): under zh-TW each is one Chinese
/// line and exit 2; in English the same line fails the test above.
#[test]
fn the_library_s_refusals_speak_chinese() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let heads = dir.path().join("heads.toml");
    std::fs::write(&heads, "heads = 5\n").expect("write the model file");
    let heads = heads.to_str().expect("a UTF-8 path");
    let folder = dir.path().to_str().expect("a UTF-8 path");
    let missing = dir.path().join("x0.npy");
    let missing = missing.to_str().expect("a UTF-8 path");
    // The model file's keys a refusal names.
    let mut ids = identifiers();
    ids.extend(["heads", "layers", "vocab"].map(String::from));
    let cases: Vec<Vec<&str>> = vec![
        vec!["check", "--input", missing],
        vec!["check", "--config", folder],
        vec!["check", "--config", heads],
        vec!["check", "--tokens", "1,abc"],
        vec!["check", "--tokens", "1,2;3"],
        vec!["check", "--preset", "lesson-lm", "--tokens", "999"],
        vec!["check", "--batch", "3", "--tokens", "1,2"],
        vec!["check", "--heads", "5"],
        vec!["check", "--seq", "0"],
        vec!["params", "--preset", "gpt2-small", "--tp", "5"],
        vec!["params", "--layers", "3", "--pp", "2"],
    ];
    for args in cases {
        let (_, en, code) = run(&args, &[]);
        assert_eq!(code, Some(2), "{args:?}: {en}");
        assert!(
            !english_words(&en, &ids).is_empty(),
            "{args:?}: the test finds no English in English output: {en}"
        );
        let (_, zh, code) = run(&args, ZH_ENV);
        assert_eq!(code, Some(2), "{args:?}: {zh}");
        assert_eq!(zh.lines().count(), 1, "{args:?}: {zh}");
        assert!(zh.starts_with("shapetrace: "), "{args:?}: {zh}");
        assert_chinese(&format!("{args:?}"), &zh, &ids);
    }
}

/// Wide characters take two columns: the zh-TW table's columns line up
/// on a terminal, so the header's `形狀` starts where each row's shape does.
#[test]
fn the_chinese_table_lines_up_by_display_width() {
    use unicode_width::UnicodeWidthStr;
    let (out, _, _) = run(&["trace", "--lang", "zh-TW"], &[]);
    let column = |line: &str, needle: &str| line.find(needle).map(|at| line[..at].width());
    let head = out.lines().next().unwrap();
    let shape = column(head, "形狀").unwrap();
    let dtype = column(head, "數據類型").unwrap();
    let rows: Vec<&str> = out.lines().skip(1).take_while(|l| !l.is_empty()).collect();
    assert!(rows.len() > 30);
    for row in rows {
        assert_eq!(column(row, "(B="), Some(shape), "{head}\n{row}");
        assert_eq!(column(row, "f32"), Some(dtype), "{head}\n{row}");
    }
}

/// A refusal names every value it would take: the list of faults is not
/// cut, even where the message also quotes the user's line (a model file).
#[test]
fn a_refusal_lists_every_fault_whole() {
    let dir = std::env::temp_dir().join(format!("shapetrace-cli-zh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("m.toml");
    std::fs::write(&file, "fault = \"no-mask\"\n").unwrap();
    let path = file.to_str().unwrap();
    for args in [
        vec!["check", "--config", path],
        vec!["trace", "--fault", "no-mask"],
    ] {
        let (_, err, code) = run(&args, &[]);
        assert_eq!(code, Some(2), "{err}");
        assert!(!err.contains("chars)"), "{err}");
        for f in shapetrace::config::Fault::ALL {
            assert!(err.contains(f.as_str()), "{f} missing: {err}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The lesson model starts from x0: it has no wte and no wpe, so its
/// handout does not say `positions: learned`; a model with a vocabulary
/// does.
#[test]
fn a_handout_says_a_model_without_embeddings_has_no_positions() {
    let (html, err, _) = run(&["trace", "--format", "html"], &[]);
    assert!(err.is_empty(), "{err}");
    let at = html.find(">positions<").expect("a positions row");
    let row = &html[at..at + 200];
    assert!(row.contains("none (starts from x0"), "{row}");
    assert!(!row.contains("learned"), "{row}");
    let (md, _, _) = run(&["trace", "--format", "markdown"], &[]);
    assert!(
        md.contains("| positions | none (starts from x0, no position embedding) |"),
        "{md}"
    );
    let (lm, _, _) = run(
        &[
            "trace",
            "--format",
            "markdown",
            "--preset",
            "gpt2-small",
            "--shape-only",
        ],
        &[],
    );
    assert!(lm.contains("| positions | learned |"), "{lm}");
}
