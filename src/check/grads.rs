//! The checks of a run with the backward ([`crate::model::backward`]),
//! and the `grads` check itself.
//!
//! The forward is judged as a run without the backward is: every check on
//! the events before the loss. `grads` then judges the backward:
//!
//! 1. every gradient has its tensor's shape: `grad.X` that of the step X
//!    (the trace's own events) or of the parameter X (the model built
//!    shape-only), and every parameter has one;
//! 2. on a numeric run, every gradient agrees with central finite
//!    differences of the loss in f64, `(L(x + h) − L(x − h)) / 2h`, on
//!    sampled coordinates (its largest and two drawn from its name), the
//!    forward run again from its tape with that one value moved. The first
//!    gradient, in the order the backward made it, that disagrees is
//!    where the backward broke: the step that read the tensor sent it back.
//!
//! A coordinate where the loss is not smooth (a ReLU's kink inside ±h) is
//! seen by its two step sizes disagreeing with each other, and left out.

use super::influence::{Subject, rerunnable_why};
use super::{CheckName, CheckResult};
use crate::config::{DType, ModelConfig};
use crate::model::backward::replay::loss_with;
use crate::model::{Model, record};
use crate::ops::numeric::Numeric;
use crate::ops::shape::ShapeOnly;
use crate::ops::{Backend, OpKind, fmt_shape};
use crate::trace::recorder::Watch;
use crate::trace::recorder::tape::{Key, Tape};
use crate::trace::{Mode, Trace};
use crate::why::Why;
use ndarray::ArrayD;
use rand::{RngExt, SeedableRng};

/// The forward part of a trace with the backward: its events before the
/// loss, under its config without the backward.
#[must_use]
pub fn forward_part(trace: &Trace) -> Trace {
    let mut events = trace.events.clone();
    if let Some(at) = events.iter().position(is_backward) {
        events.truncate(at);
    }
    Trace {
        config: forward_config(&trace.config),
        events,
        ..trace.clone()
    }
}

/// `cfg` without the backward: a fault of the backward's goes with it,
/// its forward being the right one.
#[must_use]
pub fn forward_config(cfg: &ModelConfig) -> ModelConfig {
    let in_backward = cfg.fault.is_some_and(|f| {
        f.spec()
            .needs
            .contains(&crate::config::fault::Need::Backward)
    });
    ModelConfig {
        backward: false,
        fault: if in_backward { None } else { cfg.fault },
        ..cfg.clone()
    }
}

/// Whether an event is the backward's: the loss or a gradient.
#[must_use]
pub fn is_backward(e: &crate::trace::Event) -> bool {
    matches!(e.op, OpKind::Loss | OpKind::Grad)
}

/// Every check of a run with the backward: the forward's, then `grads`.
#[must_use]
pub fn all(trace: &Trace, subject: Subject) -> Vec<CheckResult> {
    let forward = forward_part(trace);
    let fwd = forward_config(subject.cfg);
    let mut out = super::all_of(
        &forward,
        Subject {
            cfg: &fwd,
            ..subject
        },
    );
    out.push(grads(trace, subject));
    out
}

/// `grads` of a trace log: every gradient's shape, judged from its events
/// and the model its header names, built shape-only; the values need the
/// model's weights, which a log does not hold. A log's own verdict is
/// never believed.
#[must_use]
pub fn of_log(trace: &Trace) -> CheckResult {
    let name = CheckName::Grads;
    if let Some(skip) = super::stopped(name, trace) {
        return skip;
    }
    let cfg = ModelConfig {
        backward: true,
        ..trace.config.clone()
    };
    if cfg.validate().is_err() {
        return CheckResult::skip(name, "").said(Why::new("check-grads-log-model"));
    }
    if let Some(bad) = shapes_apart(trace, &cfg) {
        return bad;
    }
    let counted = trace.events.iter().filter(|e| e.op == OpKind::Grad).count();
    CheckResult::pass(name, "").said(
        Why::new("check-grads-shapes")
            .arg("n", counted)
            .arg("reason", Why::new("check-grads-log-values").text()),
    )
}

/// The relative step of the finite differences, and the agreement asked.
const H: f64 = 1e-5;
/// |backward − differences| allowed, relative to the larger of the two
/// and to the tensor's largest gradient.
const TOL: f64 = 1e-6;
/// How many times the differences' own rounding, ε·|L|/h, is allowed
/// on top: where a gradient is near 0 that is all that is left.
const ROUNDING: f64 = 100.0;
/// Coordinates drawn per gradient, beside its largest.
const DRAWN: usize = 2;

/// The `grads` verdict.
#[must_use]
pub fn grads(trace: &Trace, subject: Subject) -> CheckResult {
    let name = CheckName::Grads;
    if let Some(skip) = super::stopped(name, trace) {
        return skip;
    }
    if let Some(bad) = shapes_apart(trace, subject.cfg) {
        return bad;
    }
    let counted = trace.events.iter().filter(|e| e.op == OpKind::Grad).count();
    let shapes_only = |reason: Why| {
        CheckResult::pass(name, "").said(
            Why::new("check-grads-shapes")
                .arg("n", counted)
                .arg("reason", reason.text()),
        )
    };
    if trace.mode == Mode::ShapeOnly {
        return shapes_only(Why::new("check-shape-only-compare"));
    }
    if let Err(why) = rerunnable_why(subject.cfg) {
        return shapes_only(why);
    }
    // The backward's rules judged in f64, where differences are exact
    // enough to see them, on the same weights and input.
    let cfg = ModelConfig {
        dtype: DType::F64,
        ..subject.cfg.clone()
    };
    let backend = Numeric::<f64>::new();
    let x0 = subject.input.map(|x| x.mapv(f64::from).into());
    let recorded = record(
        &cfg,
        &backend,
        subject.source,
        (x0, subject.tokens),
        &Watch::default(),
    );
    let Some((tape, backward)) = recorded.backward else {
        let path = recorded.trace.failure.map(|f| f.path).unwrap_or_default();
        return CheckResult::skip(name, "").said(Why::new("check-stopped").arg("path", path));
    };
    let mut judged = Judged::default();
    for e in backward.events.iter().filter(|e| e.op == OpKind::Grad) {
        let of = e.path.strip_prefix("grad.").unwrap_or(&e.path);
        let (key, g) = match backward.acts.get(of) {
            Some(g) => (Key::Act(of.to_string()), g),
            None => match backward.params.iter().find(|p| p.0 == of) {
                Some((n, _, Some(g))) => (Key::Param(n.clone()), g),
                _ => continue,
            },
        };
        let loss = backward.loss.unwrap_or(0.0);
        if let Some(apart) = judge(&tape, (&key, g), loss, &mut judged) {
            return CheckResult::fail(name, &e.path, "").said(
                Why::new("check-grads-fail")
                    .arg("path", e.path.as_str())
                    .arg("at", apart.at)
                    .arg("backward", sci(apart.backward))
                    .arg("fd", sci(apart.fd))
                    .arg("delta", sci((apart.backward - apart.fd).abs()))
                    .arg("allowed", sci(apart.allowed))
                    .arg("from", readers(&e.inputs)),
            );
        }
    }
    CheckResult::pass(name, "").said(
        Why::new("check-grads-pass")
            .arg("n", counted)
            .arg("coords", judged.coords)
            .arg("tensors", judged.tensors)
            .arg("share", sci(judged.worst))
            .arg("tol", sci(TOL))
            .arg("rounding", format!("{ROUNDING}")),
    )
}

/// The steps whose backward sent a gradient: its inputs, `grad.` off.
fn readers(inputs: &[String]) -> String {
    let names: Vec<&str> = inputs
        .iter()
        .map(|i| i.strip_prefix("grad.").unwrap_or(i))
        .collect();
    names.join(", ")
}

/// `v` as the verdicts write numbers: `1.2e-3`.
fn sci(v: f64) -> String {
    format!("{v:.1e}")
}

/// What the differences have judged so far.
#[derive(Default)]
struct Judged {
    /// Coordinates compared.
    coords: usize,
    /// Gradients with at least one coordinate compared.
    tensors: usize,
    /// The largest share of its allowance a |Δ| used.
    worst: f64,
}

/// One coordinate where the backward and the differences disagree.
struct Apart {
    /// The coordinate: `[0, 1, 2, 1]`.
    at: String,
    /// The backward's value there.
    backward: f64,
    /// The finite differences'.
    fd: f64,
    /// The |Δ| allowed.
    allowed: f64,
}

/// Compares gradient `g` of `key` with finite differences on its sampled
/// coordinates; the first that disagrees.
fn judge(
    tape: &Tape,
    (key, g): (&Key, &ArrayD<f64>),
    loss: f64,
    judged: &mut Judged,
) -> Option<Apart> {
    let x = tape.values(key)?;
    let scale = g.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let mut any = false;
    for i in coordinates(key, g) {
        let v = x.iter().nth(i).copied()?;
        let fd_at = |h: f64| {
            let moved = |by: f64| {
                let mut m = x.clone();
                if let Some(slot) = m.iter_mut().nth(i) {
                    *slot = v + by;
                }
                loss_with(tape, key, &m)
            };
            Some((moved(h)? - moved(-h)?) / (2.0 * h))
        };
        let h = H * v.abs().max(1.0);
        let Some(fd) = fd_at(h) else {
            continue;
        };
        // Relative to the gradient, and above the differences' own
        // rounding, ε·|L|/h.
        let allowed = TOL * fd.abs().max(scale) + ROUNDING * f64::EPSILON * (1.0 + loss.abs()) / h;
        let backward = g.iter().nth(i).copied()?;
        let delta = (backward - fd).abs();
        // Not smooth inside ±h (a ReLU's kink): half the step disagrees
        // with the whole; such a coordinate is left out.
        if delta > allowed && fd_at(h / 2.0).is_none_or(|half| (fd - half).abs() > allowed) {
            continue;
        }
        any = true;
        judged.coords += 1;
        judged.worst = judged.worst.max(delta / allowed);
        if delta > allowed || !delta.is_finite() {
            let at = unravel(i, g.shape());
            return Some(Apart {
                at,
                backward,
                fd,
                allowed,
            });
        }
    }
    judged.tensors += usize::from(any);
    None
}

/// The flat indices compared for a gradient: its largest |value| and
/// [`DRAWN`] more drawn from its name.
fn coordinates(key: &Key, g: &ArrayD<f64>) -> Vec<usize> {
    let n = g.len();
    if n == 0 {
        return Vec::new();
    }
    let largest = g
        .iter()
        .enumerate()
        .fold((0, -1.0), |(bi, bv), (i, v)| {
            if v.abs() > bv { (i, v.abs()) } else { (bi, bv) }
        })
        .0;
    let name = match key {
        Key::Act(p) | Key::Param(p) => p.as_str(),
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(crate::seed::seed_for(0, name));
    let mut out = vec![largest];
    for _ in 0..DRAWN {
        let i = rng.random_range(0..n);
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// Flat index `i` of `shape` as `[a, b, c]`.
fn unravel(mut i: usize, shape: &[usize]) -> String {
    let mut at = vec![0; shape.len()];
    for (slot, &n) in at.iter_mut().zip(shape).rev() {
        *slot = i % n.max(1);
        i /= n.max(1);
    }
    let parts: Vec<String> = at.iter().map(ToString::to_string).collect();
    format!("[{}]", parts.join(","))
}

/// The first gradient whose shape is not its tensor's, or a parameter
/// with no gradient: the failing verdict.
fn shapes_apart(trace: &Trace, cfg: &ModelConfig) -> Option<CheckResult> {
    let name = CheckName::Grads;
    let grads: Vec<&crate::trace::Event> = trace
        .events
        .iter()
        .filter(|e| e.op == OpKind::Grad)
        .collect();
    let backend = ShapeOnly(cfg.dtype);
    let model = if cfg.vocab.size.is_some() {
        Model::build_lm(cfg, &backend, crate::model::Source::Seeded)
    } else {
        Model::build(cfg, &backend)
    };
    for p in model.params() {
        let shape = ShapeOnly::shape(&p.t);
        let path = format!("grad.{}", p.name);
        let Some(g) = grads.iter().find(|e| e.path == path) else {
            return Some(
                CheckResult::fail(name, &path, "").said(
                    Why::new("check-grads-missing")
                        .arg("param", p.name.as_str())
                        .arg("shape", fmt_shape(shape)),
                ),
            );
        };
        if g.shape != shape {
            return Some(apart(&path, &g.shape, shape));
        }
    }
    for g in &grads {
        let of = g.path.strip_prefix("grad.").unwrap_or(&g.path);
        let step = trace.events.iter().find(|e| e.path == of);
        if let Some(step) = step
            && step.shape != g.shape
        {
            return Some(apart(&g.path, &g.shape, &step.shape));
        }
    }
    None
}

/// `grad.X` of `shape` where X is `of`.
fn apart(path: &str, shape: &[usize], of: &[usize]) -> CheckResult {
    CheckResult::fail(CheckName::Grads, path, "").said(
        Why::new("check-grads-shape")
            .arg("path", path)
            .arg("shape", fmt_shape(shape))
            .arg("of", path.strip_prefix("grad.").unwrap_or(path))
            .arg("expected", fmt_shape(of)),
    )
}
