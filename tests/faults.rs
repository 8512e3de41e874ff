//! Every teaching fault against every check: each fault is caught by
//! exactly the checks its row of [`TABLE`] names (computed verdicts on the
//! lesson model, not the table read back), every check (each `CheckName`,
//! enumerated from the enum) is failed by at least one fault, and the
//! command line says the same with its exit codes.

mod common;
use common::cfg;
use shapetrace::CheckName::{
    self, Causality, Finite, OpShapes, Params, Positionwise, Reference, Residual, Returns, Routing,
    Stream, Wiring,
};
use shapetrace::config::Fault;
use shapetrace::ops::numeric::Numeric;
use shapetrace::ops::{Backend, Masking, Op};
use shapetrace::{ModelConfig, Request, Status};
use std::collections::BTreeSet;

/// Fault → the checks that must fail on the lesson model, and where the
/// first of them points.
const TABLE: &[(&str, &[CheckName], &str)] = &[
    ("ffn-no-down", &[Residual], "block1.resid_2"),
    ("attn-no-merge", &[Residual], "block1.resid_1"),
    ("bias-w1-64", &[OpShapes], "block1.mlp.up"),
    ("down-to-ff", &[Stream], "block1.mlp.down"),
    ("softmax-no-max", &[Finite], "block1.attn.weights"),
    ("mlp-returns-input", &[Returns, Reference], "block1.resid_2"),
    ("skip-block1", &[Wiring, Reference], "block2.ln_1"),
    ("ln-after-add", &[Wiring, Reference], "block1.resid_2"),
    ("no-out-proj", &[Params, Reference], "block1.attn"),
    (
        "merge-no-transpose",
        &[Causality, Reference],
        "block1.attn.merge",
    ),
    (
        "no-causal-mask",
        &[Causality, Reference],
        "block1.attn.weights",
    ),
    (
        "norm-over-seq",
        &[Positionwise, Causality, Reference],
        "block1.ln_1",
    ),
    (
        "norm-over-batch",
        &[Positionwise, Causality, Reference],
        "block1.ln_1",
    ),
    ("act-after-down", &[Reference], "block1.resid_2"),
    ("norm-no-cast-back", &[Stream], "block1.ln_1"),
    ("softmax-no-cast-back", &[OpShapes], "block1.attn.context"),
    (
        "moe-capacity",
        &[Routing, Positionwise, Causality, Reference],
        "block1.moe.combine",
    ),
];

/// The dtype a fault needs to show: the cast faults need a 16-bit model.
fn dtype_for(fault: Fault) -> &'static str {
    match fault {
        Fault::NormNoCastBack | Fault::SoftmaxNoCastBack => "bf16",
        _ => "f32",
    }
}

fn row(fault: Fault) -> (&'static [CheckName], &'static str) {
    let (_, checks, path) = TABLE
        .iter()
        .find(|(name, _, _)| *name == fault.as_str())
        .unwrap_or_else(|| panic!("{fault} has no row in the table"));
    (checks, path)
}

/// The names of the checks that fail in `run`.
fn failing(run: &shapetrace::Run) -> BTreeSet<&'static str> {
    run.checks
        .iter()
        .filter(|c| c.status == Status::Fail)
        .map(|c| c.name.as_str())
        .collect()
}

/// The preset a fault shows on: `moe-capacity` needs experts.
fn preset_for(fault: Fault) -> &'static str {
    match fault {
        Fault::MoeCapacity => "lesson-moe",
        _ => "lesson",
    }
}

fn lesson(fault: Fault) -> ModelConfig {
    cfg(&format!(
        "preset = '{}'\nfault = '{fault}'\ndtype = '{}'",
        preset_for(fault),
        dtype_for(fault)
    ))
}

#[test]
fn each_fault_is_caught_by_exactly_the_checks_of_its_row() {
    assert_eq!(TABLE.len(), Fault::ALL.len(), "one row per fault");
    for &fault in Fault::ALL {
        let (checks, path) = row(fault);
        let run = shapetrace::run(&lesson(fault)).unwrap();
        let want: BTreeSet<&str> = checks.iter().map(|c| c.as_str()).collect();
        assert_eq!(failing(&run), want, "{fault}");
        let first = run.checks.iter().find(|c| c.name == checks[0]).unwrap();
        assert_eq!(first.path.as_deref(), Some(path), "{fault}: {first:?}");
        // The library's table, which the grid of variants reads, agrees.
        assert_eq!(shapetrace::check::catches(fault), checks, "{fault}");
    }
    // The correct model fails nothing: the rows are the faults' doing.
    let run = shapetrace::run(&ModelConfig::default()).unwrap();
    assert!(failing(&run).is_empty(), "{:?}", run.checks);
}

#[test]
fn every_check_is_failed_by_some_fault() {
    let mut caught: BTreeSet<&str> = BTreeSet::new();
    for &fault in Fault::ALL {
        caught.extend(failing(&shapetrace::run(&lesson(fault)).unwrap()));
    }
    for name in CheckName::ALL {
        assert!(caught.contains(name.as_str()), "no fault fails {name}");
    }
}

fn shapetrace_cli(args: &[&str]) -> (Option<i32>, String) {
    let (code, out, _) = common::cli(args);
    (code, out)
}

#[test]
fn check_exits_1_on_every_fault_naming_each_failing_check() {
    assert_eq!(shapetrace_cli(&["check"]).0, Some(0));
    for &fault in Fault::ALL {
        let args = [
            "check",
            "--fault",
            fault.as_str(),
            "--dtype",
            dtype_for(fault),
            "--preset",
            preset_for(fault),
        ];
        let (code, out) = shapetrace_cli(&args);
        assert_eq!(code, Some(1), "{fault}: {out}");
        let (checks, path) = row(fault);
        for name in CheckName::ALL {
            let line = format!("✗ {name} ");
            assert_eq!(
                out.contains(&line),
                checks.contains(name),
                "{fault} {name}: {out}"
            );
        }
        assert!(out.contains(path), "{fault}: {out}");
        assert!(out.contains(&format!("fault {fault}")), "{fault}: {out}");
    }
}

#[test]
fn every_fault_is_described_and_listed_in_the_help_and_the_readme() {
    let (_, help) = shapetrace_cli(&["check", "--help"]);
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let mut seen = BTreeSet::new();
    for &fault in Fault::ALL {
        let d = fault.describe();
        assert!(d.len() > 20 && seen.insert(d), "{fault}: {d}");
        assert!(help.contains(fault.as_str()), "--help lacks {fault}");
        assert!(
            readme.contains(&format!("| `{fault}` |")),
            "README lacks {fault}"
        );
    }
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
        let (checks, _) = row(fault);
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
