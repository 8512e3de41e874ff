//! The `reference` check: the model's computed values against a forward
//! written apart from them, on the same weights and the same input x0.
//!
//! - Without a fault: the fast path (the numeric backend in the model's
//!   dtype, fused where the trace fuses) against the plain f64 forward of
//!   [`super::plain`] ([`plain`] here): every block's output within
//!   64·ε of its dtype, relative to `1 + max |plain|`, and the largest
//!   |Δ| named. A bug in a kernel (a tile bound, a head merge in place)
//!   fails it.
//! - Under a fault: the model as built against the architecture its
//!   config declares (the same config without its fault), both on the
//!   fast path:
//!
//! ```text
//! for n in 1..=layers:   |blockN(x)_built − blockN(x)_declared| ≤ 1e-5·(1 + |declared|)
//! ```
//!
//! Either compares the output of every block, the last stream tensor each
//! block records (and the final norm's, if any), and names the first
//! block that differs with the largest |Δ|. A mistake that keeps every
//! shape, every parameter and every position-wise and causal property
//! (the activation after the down projection) still computes something
//! else, and only this comparison sees it.
//!
//! Skipped, as the probes are, in shape-only runs (no values), on models
//! too large to re-run, and when the forward stopped (the check that
//! stopped it judges it).

pub mod plain;

use super::CheckResult;
use super::influence::Subject;
use crate::config::{DType, ModelConfig};
use crate::model;
use crate::ops::numeric::{Numeric, Scalar};
use crate::trace::{CheckName, Trace};

/// The largest |Δ| allowed between two values, relative to `1 + |want|`.
pub const TOLERANCE: f64 = 1e-5;

/// Where the built model first differs from the declared one: the
/// output's path (built, declared) and the largest |Δ| there.
#[derive(Debug, Clone, PartialEq)]
pub struct Differs {
    /// Path of the built model's output that differs, e.g. `block1.resid_2`.
    pub built: String,
    /// Path of the declared model's matching output.
    pub declared: String,
    /// The largest |Δ| between them, over every value of that output.
    pub delta: f64,
}

/// The `reference` verdict on the model of `trace`, re-run as `subject`.
#[must_use]
pub fn reference(trace: &Trace, subject: Subject) -> CheckResult {
    let name = CheckName::Reference;
    if let Some(skip) = super::cannot_rerun(name, trace, subject.cfg) {
        return skip;
    }
    let declared = ModelConfig {
        fault: None,
        ..subject.cfg.clone()
    };
    let fault = subject
        .cfg
        .fault
        .map_or_else(|| "none".to_string(), |f| f.to_string());
    if subject.cfg.fault.is_none() {
        return judge_plain(subject);
    }
    match compare(subject, &declared) {
        Err(why) => CheckResult::skip(name, why),
        Ok((n, None)) => CheckResult::pass(name, "").said(
            crate::why::Why::new("check-reference-pass")
                .arg("n", n)
                .arg(
                    "fault",
                    subject
                        .cfg
                        .fault
                        .map_or_else(|| "none".to_string(), |f| f.to_string()),
                ),
        ),
        Ok((_, Some(d))) => CheckResult::fail(name, &d.built, "").said(
            crate::why::Why::new("check-reference-fail")
                .arg("path", d.built.as_str())
                .arg("fault", fault.as_str())
                .arg(
                    "declared",
                    if d.declared == d.built {
                        "same"
                    } else {
                        d.declared.as_str()
                    },
                )
                .arg("delta", format!("{:.2e}", d.delta)),
        ),
    }
}

/// The verdict of the fast path against the plain f64 forward.
fn judge_plain(subject: Subject) -> CheckResult {
    use crate::why::Why;
    let name = CheckName::Reference;
    let e = |v: f64| format!("{v:.1e}");
    let dtype = subject.cfg.dtype.as_str();
    match plain::against_plain(subject) {
        Ok(a) => match a.apart {
            None => CheckResult::pass(name, "").said(
                Why::new("check-reference-plain-pass")
                    .arg("n", a.compared)
                    .arg("delta", e(a.largest))
                    .arg("tol", e(plain::tolerance(subject.cfg.dtype)))
                    .arg("dtype", dtype),
            ),
            Some(d) => CheckResult::fail(name, &d.path, "").said(
                Why::new("check-reference-plain-fail")
                    .arg("path", d.path.as_str())
                    .arg("delta", e(d.delta))
                    .arg("allowed", e(d.allowed))
                    .arg("dtype", dtype),
            ),
        },
        Err(plain::NotCompared::Stopped(path)) => {
            CheckResult::skip(name, "").said(Why::new("check-stopped").arg("path", path.as_str()))
        }
        Err(plain::NotCompared::Plain(why)) => CheckResult::skip(name, "")
            .said(Why::new("check-reference-plain-error").arg("error", why.to_string())),
    }
}

/// Runs the built model of `subject` and `declared` on the same weights
/// and x0: how many outputs were compared, and the first that differs.
///
/// # Errors
/// Why they cannot be compared: the model is invalid, too large to
/// re-run, or a run stops.
pub fn compare(
    subject: Subject,
    declared: &ModelConfig,
) -> Result<(usize, Option<Differs>), String> {
    let cfg = subject.cfg;
    super::influence::rerunnable(cfg)?;
    match cfg.dtype {
        DType::F64 => compare_as::<f64>(subject, declared),
        _ => compare_as::<f32>(subject, declared),
    }
}

fn compare_as<F: Scalar>(
    subject: Subject,
    declared: &ModelConfig,
) -> Result<(usize, Option<Differs>), String> {
    let cfg = subject.cfg;
    let x0 = match subject.input {
        Some(x) => x.mapv(|v| F::of(f64::from(v))),
        None => model::input(cfg, &Numeric::<F>::new()).into_array(),
    };
    let (built_trace, built) = crate::run::captured::<F>(cfg, subject.source, x0.clone());
    let (declared_trace, want) = crate::run::captured::<F>(declared, subject.source, x0);
    for (t, who) in [
        (&built_trace, "the built model"),
        (&declared_trace, "the declared one"),
    ] {
        if let Some(f) = &t.failure {
            return Err(format!("{who} stops at {}", f.path));
        }
    }
    let (a, b) = (plain::outputs(cfg, &built), plain::outputs(cfg, &want));
    for (x, y) in a.iter().zip(&b) {
        let delta = largest_delta(&x.values, &y.values);
        if delta > 0.0 {
            return Ok((
                a.len(),
                Some(Differs {
                    built: x.path.clone(),
                    declared: y.path.clone(),
                    delta,
                }),
            ));
        }
    }
    Ok((a.len(), None))
}

/// The largest |a − b| beyond the tolerance (∞ where one is NaN or the
/// shapes differ), 0 when every pair is within it.
fn largest_delta(a: &[f64], b: &[f64]) -> f64 {
    if a.len() != b.len() {
        return f64::INFINITY;
    }
    a.iter().zip(b).fold(0.0, |m, (x, y)| {
        let d = (x - y).abs();
        if d.is_nan() {
            f64::INFINITY
        } else if d > TOLERANCE * (1.0 + y.abs()) {
            m.max(d)
        } else {
            m
        }
    })
}

#[cfg(test)]
mod tests {
    use super::largest_delta;

    #[test]
    fn values_within_the_tolerance_agree_and_others_do_not() {
        assert_eq!(largest_delta(&[1.0, 2.0], &[1.0, 2.0 + 1e-6]), 0.0);
        assert_eq!(largest_delta(&[1.0, 2.0], &[1.0, 2.5]), 0.5);
        assert!(largest_delta(&[f64::NAN], &[1.0]).is_infinite());
        assert!(largest_delta(&[1.0], &[1.0, 2.0]).is_infinite());
    }
}
