//! The checks: each reads a finished [`Trace`] (the probes also re-run the
//! model on perturbed inputs) and gives a named verdict with a detail line.
//!
//! Checks that judge one step (`op-shapes`, `residual`, `stream`,
//! `finite`) also stopped the forward where they failed; the others judge
//! the whole run. `params` compares the built weights with the closed form.

pub mod contract;
pub mod influence;
pub mod params;
pub mod probe;

use crate::config::Fault;
use crate::trace::Trace;
pub use crate::trace::verdict::{CheckName, CheckResult, Status};

/// Every check on `trace` of the seeded model: the contract checks,
/// `params`, then the probes.
#[must_use]
pub fn all(trace: &Trace) -> Vec<CheckResult> {
    all_of(trace, influence::Subject::seeded(&trace.config))
}

/// As [`all`], the probes re-running `subject` (the traced config with its
/// loaded weights or input, if the trace had them).
#[must_use]
pub fn all_of(trace: &Trace, subject: influence::Subject) -> Vec<CheckResult> {
    let mut out = contract::all(trace);
    out.push(params::params(trace));
    out.extend(probe::all(trace, subject));
    out
}

/// The checks that catch `fault` on a model where it shows.
#[must_use]
pub fn catches(fault: Fault) -> &'static [CheckName] {
    match fault {
        Fault::FfnNoDown | Fault::AttnNoMerge => &[CheckName::Residual],
        Fault::BiasW164 => &[CheckName::OpShapes],
        Fault::MergeNoTranspose | Fault::NoCausalMask => &[CheckName::Causality],
        Fault::SkipBlock1 => &[CheckName::Wiring],
        Fault::NormOverSeq => &[CheckName::Positionwise, CheckName::Causality],
        Fault::NoOutProj => &[CheckName::Params],
    }
}
