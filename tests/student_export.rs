//! Students' own PyTorch models (`scripts/students/*.py`), exported afresh
//! by `scripts/shapetrace_export.py` at test time and judged by the built
//! `shapetrace check --log`: each correct style passes every check in its
//! row of [`STUDENTS`], and each lesson mistake fails the check named there,
//! the failing check's message pointing at the line of the model file that
//! carries the comment `# MISTAKE: …` (found by reading the file, never
//! written here). No exported event may name an axis `?`.
//!
//! The exporter runs under the Python in `$SHAPETRACE_PYTHON`. When it is
//! unset, or cannot `import torch`, each export test prints a `skipped: …`
//! line and passes, unless `SHAPETRACE_STUDENTS=required` (CI), where it
//! fails. The messages are the judge's to word: only check names, statuses,
//! exit codes and the `file.py:N` text are asserted.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// A check's verdict as `check` prints it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Pass,
    Fail,
    Skip,
}
use Verdict::{Fail, Pass, Skip};

/// What the exporter is given.
#[derive(Clone, Copy, Debug)]
enum Input {
    /// `--input 2,4,64`: x of floats (B, T, d).
    Floats,
    /// `--tokens 2,4`: token ids (B, T).
    Tokens,
}

/// One student file: `scripts/students/{file}.py:{class}`, its input and
/// the verdict expected of each check named.
struct Student {
    file: &'static str,
    class: &'static str,
    input: Input,
    expect: &'static [(&'static str, Verdict)],
}

/// The five checks every row names, in this order.
const CHECKS: [&str; 5] = [
    "residual",
    "causality",
    "positionwise",
    "op-shapes",
    "stream",
];

/// A row of the five checks: residual, causality, positionwise, op-shapes,
/// stream.
macro_rules! five {
    ($r:expr, $c:expr, $p:expr, $o:expr, $s:expr $(, $extra:literal = $v:expr)*) => {
        &[
            ("residual", $r),
            ("causality", $c),
            ("positionwise", $p),
            ("op-shapes", $o),
            ("stream", $s),
            $(($extra, $v),)*
        ]
    };
}

/// Every student file and what `check --log` must say of its fresh log.
/// A row with a `Fail` is a mistake file: exit 1, and each failing check's
/// message names `file.py:N`, N the line of its `# MISTAKE:` comment. A row
/// without is a correct file: exit 0.
const STUDENTS: &[Student] = &[
    // Correct styles.
    Student {
        file: "nanogpt_style",
        class: "Model",
        input: Input::Floats,
        expect: five!(Pass, Pass, Pass, Pass, Pass),
    },
    Student {
        file: "einsum_style",
        class: "Model",
        input: Input::Floats,
        expect: five!(Pass, Pass, Pass, Pass, Pass),
    },
    Student {
        file: "mingpt_style",
        class: "Model",
        input: Input::Floats,
        expect: five!(Pass, Pass, Pass, Pass, Pass),
    },
    Student {
        file: "mha_style",
        class: "Model",
        input: Input::Floats,
        expect: five!(Pass, Pass, Pass, Pass, Pass),
    },
    Student {
        file: "sdpa_gqa_style",
        class: "Model",
        input: Input::Floats,
        expect: five!(Pass, Pass, Pass, Pass, Pass),
    },
    // No norm or MLP module to run alone: its norms and MLPs are calls.
    Student {
        file: "functional_style",
        class: "Model",
        input: Input::Floats,
        expect: five!(Pass, Pass, Skip, Pass, Pass),
    },
    Student {
        file: "clone_iadd",
        class: "Model",
        input: Input::Floats,
        expect: five!(Pass, Pass, Pass, Pass, Pass),
    },
    Student {
        file: "gpt_tokens",
        class: "GPT",
        input: Input::Tokens,
        expect: five!(Pass, Pass, Pass, Pass, Pass),
    },
    // The model is itself an nn.Sequential of blocks: block1 and block2.
    Student {
        file: "sequential_root",
        class: "make_model",
        input: Input::Floats,
        expect: five!(Pass, Pass, Pass, Pass, Pass),
    },
    // One Block held as an attribute: the model is the one block, and
    // positionwise runs that Block's MLP alone, never the whole Block.
    Student {
        file: "wrapped_block",
        class: "Model",
        input: Input::Floats,
        expect: five!(Pass, Pass, Pass, Pass, Pass),
    },
    // Scores from torch.baddbmm(empty, q, kᵀ, beta=0, alpha=…): pre-mask.
    Student {
        file: "baddbmm_style",
        class: "Model",
        input: Input::Floats,
        expect: five!(Pass, Pass, Pass, Pass, Pass),
    },
    // Lesson mistakes.
    Student {
        file: "forgot_attn_residual",
        class: "Model",
        input: Input::Floats,
        expect: five!(Fail, Pass, Pass, Pass, Pass),
    },
    Student {
        file: "view_no_transpose",
        class: "Model",
        input: Input::Floats,
        expect: five!(Pass, Fail, Pass, Pass, Pass),
    },
    Student {
        file: "softmax_wrong_dim",
        class: "Model",
        input: Input::Floats,
        expect: five!(Pass, Fail, Pass, Pass, Pass),
    },
    Student {
        file: "norm_over_seq",
        class: "Model",
        input: Input::Floats,
        expect: five!(Pass, Fail, Fail, Pass, Pass),
    },
    Student {
        file: "no_causal_mask",
        class: "Model",
        input: Input::Floats,
        expect: five!(Pass, Fail, Pass, Pass, Pass),
    },
    Student {
        file: "merge_bare_reshape",
        class: "Model",
        input: Input::Floats,
        expect: five!(Pass, Fail, Pass, Pass, Pass),
    },
    // The forward stops at the add: the probes have nothing to judge.
    Student {
        file: "mlp_no_down",
        class: "Model",
        input: Input::Floats,
        expect: five!(Fail, Skip, Skip, Pass, Pass),
    },
    // Shapes and adds all right; a Pre-LN stream that is a norm's output.
    Student {
        file: "ln_after_add",
        class: "Model",
        input: Input::Floats,
        expect: five!(Pass, Pass, Pass, Pass, Pass, "wiring" = Fail),
    },
];

const STUDENT_DIR: &str = "scripts/students";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Writes `line` to stderr as it is: the harness captures `eprintln!`,
/// and a skip should be seen in a plain `cargo test`.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// The Python to run the exporter with, or why there is none (checked once).
fn python_or_why() -> &'static Result<PathBuf, String> {
    static FOUND: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    FOUND.get_or_init(|| {
        let Some(py) = std::env::var_os("SHAPETRACE_PYTHON").filter(|p| !p.is_empty()) else {
            return Err("SHAPETRACE_PYTHON is not set".to_string());
        };
        let py = PathBuf::from(py);
        match Command::new(&py).args(["-c", "import torch"]).output() {
            Ok(o) if o.status.success() => Ok(py),
            Ok(o) => {
                let err = String::from_utf8_lossy(&o.stderr);
                let last = err.lines().last().unwrap_or("").trim().to_string();
                Err(format!(
                    "{} cannot import torch ({}: {last})",
                    py.display(),
                    o.status
                ))
            }
            Err(e) => Err(format!("{} does not run: {e}", py.display())),
        }
    })
}

/// The Python with torch, or `None` (and a skip line) when there is none
/// and `SHAPETRACE_STUDENTS=required` does not make that a failure.
fn python(test: &str) -> Option<&'static Path> {
    match python_or_why() {
        Ok(py) => Some(py),
        Err(why) => {
            let required = std::env::var("SHAPETRACE_STUDENTS").is_ok_and(|v| v == "required");
            assert!(
                !required,
                "SHAPETRACE_STUDENTS=required but {why}: set SHAPETRACE_PYTHON to a Python with torch (scripts/requirements.txt)"
            );
            say(&format!(
                "skipped: {test}: {why}; SHAPETRACE_STUDENTS=required makes this a failure"
            ));
            None
        }
    }
}

/// The 1-based numbers of the lines of `source` whose comment starts
/// `# MISTAKE:`.
fn mistake_lines(source: &str) -> Vec<usize> {
    source
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            l.split_once('#')
                .is_some_and(|(code, c)| !code.trim().is_empty() && c.starts_with(" MISTAKE:"))
        })
        .map(|(i, _)| i + 1)
        .collect()
}

fn source_of(file: &str) -> String {
    let path = root().join(STUDENT_DIR).join(format!("{file}.py"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn row(file: &str) -> &'static Student {
    STUDENTS
        .iter()
        .find(|s| s.file == file)
        .unwrap_or_else(|| panic!("{file} has no row in STUDENTS"))
}

/// One check of `check`'s report: its verdict and its text (its line and
/// any lines under it before the next check).
struct Reported {
    verdict: Verdict,
    text: String,
}

/// The checks of a `check --log` report, by name, in order.
fn parse_report(out: &str) -> Vec<(String, Reported)> {
    let mut checks: Vec<(String, Reported)> = Vec::new();
    for line in out.lines() {
        let t = line.trim_start();
        let verdict = match t.chars().next() {
            Some('✓') => Some(Pass),
            Some('✗') => Some(Fail),
            Some('–') => Some(Skip),
            _ => None,
        };
        match verdict {
            Some(verdict) => {
                let rest = t.split_once(char::is_whitespace).map_or("", |(_, r)| r);
                let name = rest.split_whitespace().next().unwrap_or("").to_string();
                checks.push((
                    name,
                    Reported {
                        verdict,
                        text: line.to_string(),
                    },
                ));
            }
            None => {
                if let Some((_, last)) = checks.last_mut() {
                    last.text.push('\n');
                    last.text.push_str(line);
                }
            }
        }
    }
    checks
}

/// Events of the log `log` (its text) with an axis that is `?`, contains one, or
/// is no string: `path: axes` each.
fn unnamed_axes(log: &str) -> Vec<String> {
    let mut bad = Vec::new();
    for (n, line) in log.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("log line {} is no JSON ({e}): {line}", n + 1));
        if v["kind"] != "event" {
            continue;
        }
        let Some(axes) = v.get("axes").filter(|a| !a.is_null()) else {
            continue;
        };
        let named = axes.as_array().is_some_and(|a| {
            a.iter()
                .all(|x| x.as_str().is_some_and(|s| !s.contains('?')))
        });
        if !named {
            bad.push(format!("{}: {axes}", v["path"]));
        }
    }
    bad
}

/// Exports `file` afresh, judges the log and checks its row of
/// [`STUDENTS`]: every disagreement is listed in one panic.
fn judge(file: &str) {
    let Some(py) = python(file) else {
        return;
    };
    let student = row(file);
    let source = source_of(file);
    let markers = mistake_lines(&source);
    let mistake = student.expect.iter().any(|&(_, v)| v == Fail);

    let dir = tempfile::tempdir().expect("a temp dir");
    let log = dir.path().join(format!("{file}.jsonl"));
    let model = format!("{STUDENT_DIR}/{file}.py:{}", student.class);
    let (flag, value) = match student.input {
        Input::Floats => ("--input", "2,4,64"),
        Input::Tokens => ("--tokens", "2,4"),
    };
    let export = Command::new(py)
        .current_dir(root())
        .arg("scripts/shapetrace_export.py")
        .arg(&model)
        .args([flag, value, "--out"])
        .arg(&log)
        .output()
        .expect("the exporter runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&export.stdout),
        String::from_utf8_lossy(&export.stderr)
    );
    assert!(
        matches!(export.status.code(), Some(0 | 1)) && log.is_file(),
        "{model} {flag} {value}: the exporter gave {} and {}:\n{said}",
        export.status,
        if log.is_file() { "a log" } else { "no log" },
    );
    let text = std::fs::read_to_string(&log).expect("the log reads");

    let check = Command::new(env!("CARGO_BIN_EXE_shapetrace"))
        .current_dir(root())
        .arg("check")
        .arg("--log")
        .arg(&log)
        .output()
        .expect("shapetrace runs");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );

    let mut wrong: Vec<String> = Vec::new();
    let unnamed = unnamed_axes(&text);
    if !unnamed.is_empty() {
        wrong.push(format!(
            "{} events with an axis not named: {}",
            unnamed.len(),
            unnamed.join("; ")
        ));
    }
    let want_code = i32::from(mistake);
    if check.status.code() != Some(want_code) {
        wrong.push(format!(
            "check --log exits {:?}, expected {want_code}",
            check.status.code()
        ));
    }
    let at = match (mistake, markers.as_slice()) {
        (true, [n]) => Some(format!("{file}.py:{n}")),
        (true, _) => {
            wrong.push(format!(
                "a mistake file needs exactly one `# MISTAKE:` line, {file}.py has {markers:?}"
            ));
            None
        }
        (false, []) => None,
        (false, _) => {
            wrong.push(format!(
                "{file}.py has `# MISTAKE:` lines {markers:?} but its row expects no failure"
            ));
            None
        }
    };
    let reported = parse_report(&report);
    for &(name, want) in student.expect {
        match reported.iter().find(|(n, _)| n == name) {
            None => wrong.push(format!("no check {name} in the report")),
            Some((_, got)) => {
                if got.verdict != want {
                    wrong.push(format!(
                        "{name}: {:?}, expected {want:?}: {}",
                        got.verdict, got.text
                    ));
                }
                if let (Fail, Some(at)) = (want, &at)
                    && !got.text.contains(at.as_str())
                {
                    wrong.push(format!(
                        "{name}'s message does not name {at} (the `# MISTAKE:` line): {}",
                        got.text
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{model} {flag} {value}:\n  {}\n--- check --log:\n{report}--- exporter:\n{said}",
        wrong.join("\n  ")
    );
}

/// One test per student file, named after it.
macro_rules! students {
    ($($file:ident),* $(,)?) => {
        $(
            #[test]
            fn $file() {
                judge(stringify!($file));
            }
        )*

        /// The files the tests above export, in the order given.
        const TESTED: &[&str] = &[$(stringify!($file)),*];
    };
}

students!(
    nanogpt_style,
    einsum_style,
    mingpt_style,
    mha_style,
    sdpa_gqa_style,
    functional_style,
    clone_iadd,
    gpt_tokens,
    sequential_root,
    wrapped_block,
    baddbmm_style,
    forgot_attn_residual,
    view_no_transpose,
    softmax_wrong_dim,
    norm_over_seq,
    no_causal_mask,
    merge_bare_reshape,
    mlp_no_down,
    ln_after_add,
);

/// Needs no Python: every file in `scripts/students` has a row and a test,
/// every row names the five checks, and a file carries a `# MISTAKE:` line
/// exactly when its row expects a failure.
#[test]
fn every_student_file_has_a_row_a_test_and_its_marker() {
    let mut files: Vec<String> = std::fs::read_dir(root().join(STUDENT_DIR))
        .expect("scripts/students reads")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".py").map(str::to_string)
        })
        .collect();
    files.sort();
    let mut rows: Vec<String> = STUDENTS.iter().map(|s| s.file.to_string()).collect();
    rows.sort();
    assert_eq!(files, rows, "scripts/students against the STUDENTS table");
    let mut tested: Vec<String> = TESTED.iter().map(|s| (*s).to_string()).collect();
    tested.sort();
    assert_eq!(rows, tested, "the STUDENTS table against the tests");
    for s in STUDENTS {
        let names: Vec<&str> = s.expect.iter().map(|&(n, _)| n).collect();
        assert_eq!(names[..CHECKS.len()], CHECKS, "{}", s.file);
        let markers = mistake_lines(&source_of(s.file));
        let mistake = s.expect.iter().any(|&(_, v)| v == Fail);
        assert_eq!(
            markers.len(),
            usize::from(mistake),
            "{}.py: `# MISTAKE:` lines {markers:?}",
            s.file
        );
    }
}

#[test]
fn a_report_parses_into_checks() {
    let report = "x.jsonl (p): 1 of 3 checks fail\n✓ op-shapes     all ops\n✗ residual      block1.resid_2 (at x.py:9)\n  more about it\n– params        not in the log\n";
    let checks = parse_report(report);
    let names: Vec<&str> = checks.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["op-shapes", "residual", "params"]);
    assert_eq!(checks[1].1.verdict, Fail);
    assert!(checks[1].1.text.contains("x.py:9") && checks[1].1.text.contains("more about it"));
    assert_eq!(checks[2].1.verdict, Skip);
    assert_eq!(
        mistake_lines("a\nb = 1  # MISTAKE: c\n# MISTAKE: only a comment\n``# MISTAKE``\n"),
        [2]
    );
}
