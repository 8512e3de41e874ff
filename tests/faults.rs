//! Every teaching fault against every check, from the faults' own rows
//! (`shapetrace faults --format json`): each fault, run with the flags its
//! row lists, fails exactly the checks its row names (computed verdicts,
//! compared with the row's claim), every check is failed by at least one
//! fault, the first catching check points where the row says, and the
//! book's table (docs/src/checks.md) is the command's Markdown.

mod common;
use common::cfg;
use shapetrace::CheckName::{self, Causality, Finite, Positionwise, Reference, Stream};
use shapetrace::config::Fault;
use shapetrace::ops::numeric::Numeric;
use shapetrace::ops::{Backend, Masking, Op};
use shapetrace::{ModelConfig, Request, Status};
use std::collections::BTreeSet;

/// One fault as `faults --format json` lists it.
#[derive(serde::Deserialize)]
struct Listed {
    name: String,
    mistake: String,
    caught_by: Vec<String>,
    args: Vec<String>,
    at: String,
    why: String,
}

fn listed() -> Vec<Listed> {
    let (code, out, err) = common::cli(&["faults", "--format", "json", "--lang", "en"]);
    assert_eq!(code, Some(0), "{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// The names of the checks that fail in `run`.
fn failing(run: &shapetrace::Run) -> BTreeSet<&'static str> {
    run.checks
        .iter()
        .filter(|c| c.status == Status::Fail)
        .map(|c| c.name.as_str())
        .collect()
}

/// The lesson model with `fault`, built from the flags its row lists
/// (`--dtype bf16` is the model file's `dtype = 'bf16'`).
fn lesson(fault: Fault) -> ModelConfig {
    let mut toml = format!("fault = '{fault}'\n");
    let mut args = fault.spec().args.iter().peekable();
    while let Some(flag) = args.next() {
        let key = flag.trim_start_matches("--").replace('-', "_");
        // A switch (`--backward`) is followed by the next flag or nothing.
        let value = match args.next_if(|v| !v.starts_with("--")) {
            None => "true".to_string(),
            Some(v) => match v.parse::<u64>() {
                Ok(n) => n.to_string(),
                Err(_) => format!("'{v}'"),
            },
        };
        toml.push_str(&format!("{key} = {value}\n"));
    }
    cfg(&toml)
}

#[test]
fn every_listed_fault_run_with_its_args_fails_exactly_its_caught_by() {
    let all = listed();
    let names: Vec<&str> = all.iter().map(|l| l.name.as_str()).collect();
    let every: Vec<&str> = Fault::ALL.iter().map(|f| f.as_str()).collect();
    assert_eq!(names, every, "one row per fault, in --fault's order");
    assert_eq!(shapetrace_cli(&["check"]).0, Some(0));
    let mut caught: BTreeSet<String> = BTreeSet::new();
    for l in &all {
        assert!(!l.caught_by.is_empty() && !l.why.is_empty(), "{}", l.name);
        let mut args = vec!["check", "--format", "json", "--fault", l.name.as_str()];
        args.extend(l.args.iter().map(String::as_str));
        let (code, out, err) = common::cli(&args);
        assert_eq!(code, Some(1), "{}: {out}{err}", l.name);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let checks = v["checks"].as_array().unwrap();
        let failed: Vec<&str> = checks
            .iter()
            .filter(|c| c["status"] == "fail")
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        // In the order check runs them, exactly the row's.
        assert_eq!(failed, l.caught_by, "{}: {out}", l.name);
        let first = checks
            .iter()
            .find(|c| c["name"] == l.caught_by[0].as_str())
            .unwrap();
        assert_eq!(first["path"], l.at.as_str(), "{}: {first}", l.name);
        caught.extend(failed.iter().map(|s| (*s).to_string()));
        // The text report names the fault and marks each failing check.
        let mut args = vec!["check", "--fault", l.name.as_str()];
        args.extend(l.args.iter().map(String::as_str));
        let (code, out) = shapetrace_cli(&args);
        assert_eq!(code, Some(1), "{}: {out}", l.name);
        for name in CheckName::ALL {
            let marked = out.contains(&format!("✗ {name} "));
            assert_eq!(
                marked,
                l.caught_by.iter().any(|c| c == name.as_str()),
                "{} {name}: {out}",
                l.name
            );
        }
        assert!(out.contains(&format!("fault {}", l.name)), "{out}");
    }
    // Every check is failed by some fault: none is decoration.
    for name in CheckName::ALL {
        assert!(caught.contains(name.as_str()), "no fault fails {name}");
    }
}

/// The library's runs agree with the command line's: the same failing
/// checks, from `shapetrace::run` on the row's config.
#[test]
fn each_fault_s_library_run_fails_its_row_s_checks() {
    for &fault in Fault::ALL {
        let run = shapetrace::run(&lesson(fault)).unwrap();
        let want: BTreeSet<&str> = fault.spec().caught_by.iter().map(|c| c.as_str()).collect();
        assert_eq!(failing(&run), want, "{fault}");
    }
    // The correct model fails nothing: the rows are the faults' doing.
    let run = shapetrace::run(&ModelConfig::default()).unwrap();
    assert!(failing(&run).is_empty(), "{:?}", run.checks);
}

/// Without its args a fault that needs them is refused, naming the need:
/// the args are what makes it show, not decoration.
#[test]
fn a_fault_without_its_listed_args_is_refused_naming_what_it_needs() {
    let mut n = 0;
    for l in listed().iter().filter(|l| !l.args.is_empty()) {
        let (code, out, err) = common::cli(&["check", "--fault", l.name.as_str()]);
        assert_eq!(code, Some(2), "{}: {out}{err}", l.name);
        assert!(err.contains("needs"), "{}: {err}", l.name);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        n += 1;
    }
    assert!(
        n >= 3,
        "the cast faults, moe-capacity and the window faults need flags"
    );
}

fn shapetrace_cli(args: &[&str]) -> (Option<i32>, String) {
    let (code, out, _) = common::cli(args);
    (code, out)
}

/// The book's fault table (docs/src/checks.md) is `faults --format markdown`, every mistake
/// is its own sentence, and `check --help` lists every fault.
#[test]
fn the_book_s_fault_table_is_the_command_s_markdown() {
    let (code, md, _) = common::cli(&["faults", "--format", "markdown", "--lang", "en"]);
    assert_eq!(code, Some(0));
    let book = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/src/checks.md"))
        .unwrap();
    assert!(
        book.contains(&md),
        "docs/src/checks.md's table under 'Teaching faults' differs from `shapetrace faults --format markdown`:\n{md}"
    );
    let (_, help) = shapetrace_cli(&["check", "--help"]);
    let mut seen = BTreeSet::new();
    for l in listed() {
        assert!(
            l.mistake.len() > 20 && seen.insert(l.mistake.clone()),
            "{}: {}",
            l.name,
            l.mistake
        );
        assert!(help.contains(&l.name), "--help lacks {}", l.name);
    }
    // In another language the words are the catalog's, not English.
    let (_, zh, _) = common::cli(&["faults", "--format", "markdown", "--lang", "zh-TW"]);
    assert_ne!(zh, md);
    assert!(zh.contains("`ffn-no-down`"), "{zh}");
}

/// Model flags do not apply to the list of faults: refused, exit 2.
#[test]
fn faults_refuses_model_flags() {
    let (code, out, err) = common::cli(&["faults", "--preset", "gpt2-xl"]);
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(
        err.contains("--preset") && err.contains("allowed: --format"),
        "{err}"
    );
    let (code, _, err) = common::cli(&["faults", "--format", "yaml"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("yaml"), "{err}");
}

/// The scores the `softmax-no-max` fault overflows on are those its q/k
/// init gives; the stable softmax takes the very same scores without an
/// overflow, and gives weights that sum to 1.
#[test]
fn the_stable_softmax_does_not_overflow_on_the_scores_the_fault_overflows_on() {
    let req = Request {
        values: true,
        ..Request::default()
    };
    let t = shapetrace::trace_request(&lesson(Fault::SoftmaxNoMax), &req)
        .unwrap()
        .trace;
    let f = t.failure.as_ref().unwrap();
    assert_eq!((f.check, f.path.as_str()), (Finite, "block1.attn.weights"));
    let s = t
        .events
        .iter()
        .find(|e| e.path == "block1.attn.scores")
        .unwrap();
    let stats = s.stats.unwrap();
    assert!(stats.finite && stats.max > 88.8, "{stats:?}");
    #[allow(clippy::cast_possible_truncation)]
    let values: Vec<f32> = s
        .values
        .as_ref()
        .unwrap()
        .iter()
        .map(|&v| v as f32)
        .collect();
    let scores = ndarray::ArrayD::from_shape_vec(s.shape.clone(), values).unwrap();
    let scores = shapetrace::ops::numeric::Tensor::from(scores);
    let b = Numeric::<f32>::new();
    let stable = b
        .apply(
            &Op::Softmax {
                mask: Masking::Causal,
            },
            &[&scores],
        )
        .unwrap()
        .into_array();
    assert!(stable.iter().all(|v| v.is_finite()));
    for row in stable.lanes(ndarray::Axis(3)) {
        assert!((row.sum() - 1.0).abs() < 1e-5);
    }
    let naive = b
        .apply(
            &Op::SoftmaxNoMax {
                mask: Masking::Causal,
            },
            &[&scores],
        )
        .unwrap()
        .into_array();
    assert!(naive.iter().any(|v| !v.is_finite()));
}

/// The batch half of the probes: under `norm-over-batch` moving a token of
/// batch element 0 moves batch element 1 at the same position, and no
/// earlier position of its own.
#[test]
fn norm_over_batch_leaks_into_the_other_batch_element_only() {
    let run = shapetrace::run(&lesson(Fault::NormOverBatch)).unwrap();
    let detail = |n: CheckName| &run.checks.iter().find(|c| c.name == n).unwrap().detail;
    assert!(
        detail(Causality).contains("changed batch element 1"),
        "{}",
        detail(Causality)
    );
    assert!(
        detail(Positionwise).contains("of batch 1"),
        "{}",
        detail(Positionwise)
    );
}

/// `stream` is reached by a fault: the down projection's output is a
/// sublayer interface, judged before the residual add could be.
#[test]
fn down_to_ff_stops_at_the_stream_judge_before_the_add() {
    let t = shapetrace::trace(&lesson(Fault::DownToFf)).unwrap();
    let f = t.failure.as_ref().unwrap();
    assert_eq!((f.check, f.path.as_str()), (Stream, "block1.mlp.down"));
    assert!(f.detail.contains("(2,4,256), not (2,4,64)"), "{}", f.detail);
    assert!(t.events.iter().all(|e| e.path != "block1.resid_2"));
}

/// Faults that would not show are refused with what they need; the
/// wiring rule they rely on does not fire on a correct Post-LN model.
#[test]
fn faults_that_would_not_show_are_refused() {
    for (toml, needs) in [
        ("fault = 'ln-after-add'\nplacement = 'post'", "Pre-LN"),
        ("fault = 'softmax-no-max'\ndtype = 'f64'", "f32"),
        ("fault = 'act-after-down'\nact = 'swiglu'", "element-wise"),
        ("fault = 'norm-over-batch'\nbatch = 1", "batch at least 2"),
        ("fault = 'down-to-ff'\nd_ff = 64", "d_ff different"),
        // Split over 4 devices, each holds d_ff/4 = 64 = d hidden units.
        ("fault = 'ffn-no-down'\ntp = 4", "d_ff different"),
    ] {
        let e = shapetrace::Overlay::from_toml(toml, "t")
            .unwrap()
            .resolve()
            .unwrap_err();
        assert!(e.to_string().contains(needs), "{toml}: {e}");
    }
    let post = shapetrace::run(&cfg("placement = 'post'")).unwrap();
    assert!(failing(&post).is_empty(), "{:?}", post.checks);
}

/// `reference` holds on every preset: numerically where the model is
/// small enough to re-run, skipped (never passed) where it runs shapes only.
#[test]
fn reference_holds_on_every_preset() {
    use shapetrace::check::influence::PROBE_MAX_BYTES;
    for (name, _) in shapetrace::config::preset::PRESETS {
        let cfg = shapetrace::config::preset::by_name(name).unwrap();
        let req = Request {
            max_memory: Some(PROBE_MAX_BYTES),
            ..Request::default()
        };
        let run = shapetrace::run_request(&cfg, &req).unwrap();
        let r = run.checks.iter().find(|c| c.name == Reference).unwrap();
        let numeric = run.trace.mode == shapetrace::trace::Mode::Numeric;
        let want = if numeric { Status::Pass } else { Status::Skip };
        assert_eq!(r.status, want, "{name}: {r:?}");
    }
}

/// The Checks tab at 80×24 shows every check's verdict for every fault:
/// each failing check of the fault's row is marked `✗ FAIL` (a word and a
/// glyph, not a colour), and no other is.
#[test]
fn the_checks_tab_marks_each_fault_s_failing_checks() {
    use shapetrace::tui::action::Action;
    use shapetrace::tui::app::Given;
    for &fault in Fault::ALL {
        let mut lp = common::stepper(lesson(fault), Given::default());
        lp.app.update(Action::NextTab);
        common::settle(&mut lp);
        let screen = common::frame(&lp);
        let checks = fault.spec().caught_by;
        for name in CheckName::ALL {
            let marked = screen.contains(&format!("✗ FAIL {name} "));
            assert_eq!(marked, checks.contains(name), "{fault} {name}:\n{screen}");
        }
        // A failure's detail is shown to its end, not cut by the pane.
        let run = shapetrace::run(&lesson(fault)).unwrap();
        for c in run.checks.iter().filter(|c| c.status == Status::Fail) {
            let last = c.detail.split_whitespace().last().unwrap();
            assert!(
                screen.contains(last),
                "{fault} {}: {last}\n{screen}",
                c.name
            );
        }
    }
}

/// A fault no check of the run could catch is refused, never "held": on
/// gpt2-xl, over the memory limit, the run traces shapes only and skips
/// causality and reference, the two checks that catch `no-causal-mask`.
#[test]
fn a_fault_that_nothing_in_the_run_could_catch_is_refused() {
    let (code, out, err) =
        common::cli(&["check", "--preset", "gpt2-xl", "--fault", "no-causal-mask"]);
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(out.is_empty(), "{out}");
    let line = err
        .lines()
        .find(|l| l.contains("--fault no-causal-mask"))
        .unwrap_or("");
    assert!(
        line.contains("every check that catches it (causality, reference) was skipped")
            && line.contains("shape-only run")
            && line.contains("--numeric"),
        "{err}"
    );
    // The same model without the fault reports its skips, exit 0; the same
    // fault where its checks run is caught, exit 1.
    let (code, out, _) = common::cli(&["check", "--preset", "gpt2-xl"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("6 checks hold, 4 skipped"), "{out}");
    let (code, out, _) = common::cli(&["check", "--fault", "no-causal-mask"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("✗ causality"), "{out}");
}
