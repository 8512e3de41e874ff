//! `reference` on a model without a fault: the fast path (the numeric
//! backend in the model's dtype, fused where the trace fuses) against the
//! plain f64 forward of [`crate::check::plain`], on the same weights and
//! the same x0.
//!
//! ```text
//! for each block n (and LN_f):  max |fast − plain| ≤ tol·(1 + max |plain|)
//! tol = 64·ε(dtype):  f64 1.4e-14, f32 7.6e-6, f16 0.0625, bf16 0.5
//! ```
//!
//! ε is the spacing of the dtype's values just above 1. The fast path
//! rounds every sum of products to its dtype (a 16-bit one after every
//! step), so its error grows with the magnitudes it adds: the bound is
//! relative to the output's largest magnitude, not value by value.

use super::super::influence::Subject;
use super::super::plain::{self, PlainError};
use crate::config::ModelConfig;
use crate::ops::numeric::{Numeric, Scalar};
use crate::trace::recorder::Capture;
use crate::trace::{Role, block_of};
use ndarray::{Array2, ArrayD};

/// How many ε of its dtype the fast path may be off, relative to
/// `1 + max |plain|`.
pub const ULPS: f64 = 64.0;

/// The tolerance of a model in `dtype`: [`ULPS`]·ε.
#[must_use]
pub fn tolerance(dtype: crate::config::DType) -> f64 {
    ULPS * plain::epsilon(dtype)
}

/// What the fast path gave against the plain forward.
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    /// Outputs compared: one per block, and the final norm's.
    pub compared: usize,
    /// The largest |Δ| over every value compared.
    pub largest: f64,
    /// The first output farther than the tolerance, if any.
    pub apart: Option<Apart>,
}

/// An output of the fast path farther from the plain forward's than the
/// tolerance allows.
#[derive(Debug, Clone, PartialEq)]
pub struct Apart {
    /// The fast path's output, e.g. `block2.resid_2`.
    pub path: String,
    /// Its largest |Δ| (∞ for a NaN or another length).
    pub delta: f64,
    /// What was allowed there: tol·(1 + max |plain|).
    pub allowed: f64,
}

/// Why no agreement was reached: the fast path stopped, or the plain
/// forward gave nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum NotCompared {
    /// The fast run stopped at this path.
    Stopped(String),
    /// The plain forward's reason.
    Plain(PlainError),
}

/// Runs `subject` (a model without a fault) on the fast path and the plain
/// forward and compares every block's output and the final norm's.
///
/// # Errors
/// [`NotCompared`]: the fast run stopped, or the plain forward does not
/// cover the model or misses a weight.
pub fn against_plain(subject: Subject) -> Result<Agreement, NotCompared> {
    plain::covers(subject.cfg).map_err(NotCompared::Plain)?;
    match subject.cfg.dtype {
        crate::config::DType::F64 => against::<f64>(subject),
        _ => against::<f32>(subject),
    }
}

fn against<F: Scalar>(subject: Subject) -> Result<Agreement, NotCompared> {
    let cfg = subject.cfg;
    let x0 = match subject.input {
        Some(x) => x.mapv(|v| F::of(f64::from(v))),
        None => crate::model::input(cfg, &Numeric::<F>::new()).into_array(),
    };
    let fast = crate::run::fast::<F>(cfg, subject.source, x0);
    if let Some(f) = &fast.trace.failure {
        return Err(NotCompared::Stopped(f.path.clone()));
    }
    // x0 as the model took it (the last input or embedding before block 1):
    // rounded to a 16-bit dtype, as its steps are.
    let x0 = fast
        .captures
        .iter()
        .take_while(|c| block_of(&c.path).is_none())
        .filter(|c| matches!(c.role, Role::Input | Role::Embedding))
        .last()
        .and_then(|c| ArrayD::from_shape_vec(c.shape.clone(), c.values.clone()).ok())
        .ok_or(NotCompared::Plain(PlainError::Input))?;
    let want = plain::forward(cfg, &fast.weights, &x0).map_err(NotCompared::Plain)?;
    let got = outputs(cfg, &fast.captures);
    let want: Vec<&Array2<f64>> = want.blocks.iter().chain(want.ln_f.as_ref()).collect();
    Ok(agree(tolerance(cfg.dtype), &got, &want))
}

/// The fast path's outputs `got` against the plain forward's `want`, in
/// order: the largest |Δ| and the first beyond `tol`·(1 + max |want|).
/// Fewer outputs than the plain forward gave are apart at the last one.
fn agree(tol: f64, got: &[&Capture], want: &[&Array2<f64>]) -> Agreement {
    let mut agreement = Agreement {
        compared: want.len(),
        largest: 0.0,
        apart: None,
    };
    for (g, w) in got.iter().zip(want) {
        let delta = largest_delta(&g.values, w.as_slice().unwrap_or(&[]));
        let allowed = tol * (1.0 + w.iter().fold(0.0_f64, |m, v| m.max(v.abs())));
        agreement.largest = agreement.largest.max(delta);
        if delta > allowed && agreement.apart.is_none() {
            agreement.apart = Some(Apart {
                path: g.path.clone(),
                delta,
                allowed,
            });
        }
    }
    if got.len() != want.len() {
        agreement.largest = f64::INFINITY;
        let path = got.last().map_or("input", |c| c.path.as_str()).to_string();
        agreement.apart.get_or_insert(Apart {
            path,
            delta: f64::INFINITY,
            allowed: tol,
        });
    }
    agreement
}

/// The output of each block (its last capture) and of the final norm (its
/// stream tensor: the last norm capture outside the blocks).
pub(super) fn outputs<'c>(cfg: &ModelConfig, caps: &'c [Capture]) -> Vec<&'c Capture> {
    let mut out: Vec<&Capture> = (1..=cfg.layers)
        .filter_map(|n| {
            let prefix = format!("block{n}.");
            caps.iter().rev().find(|c| c.path.starts_with(&prefix))
        })
        .collect();
    if cfg.norms.final_norm {
        let ln_f = caps
            .iter()
            .rev()
            .find(|c| c.role == Role::Norm && block_of(&c.path).is_none());
        out.extend(ln_f);
    }
    out
}

/// The largest |a − b| (∞ where one is NaN or the lengths differ).
fn largest_delta(a: &[f64], b: &[f64]) -> f64 {
    if a.len() != b.len() {
        return f64::INFINITY;
    }
    a.iter().zip(b).fold(0.0, |m, (x, y)| {
        let d = (x - y).abs();
        if d.is_nan() { f64::INFINITY } else { m.max(d) }
    })
}

#[cfg(test)]
mod tests;
