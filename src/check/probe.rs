//! Behavioural probes: re-run the model on a perturbed input and see which
//! output rows change.
//!
//! - `positionwise`: each norm and MLP, run alone on a random (B,T,d)
//!   input, changes only token s when only token s of its input changes.
//! - `causality`: changing token t of batch element 0 of x0 changes no
//!   output at a position < t, and nothing in another batch element.

use super::CheckResult;
use super::influence::{Kind, Subject, influence};
use crate::trace::{CheckName, Mode, Trace};

/// Largest model the probes re-run, in bytes of a numeric run.
pub const PROBE_MAX_BYTES: u128 = 256 << 20;

/// Both probes on the model of `trace`, re-run as `subject` (whose config
/// is the trace's).
#[must_use]
pub fn all(trace: &Trace, subject: Subject) -> Vec<CheckResult> {
    let names = [CheckName::Positionwise, CheckName::Causality];
    // The size limit lives in `influence`, which the Probes tab and the
    // `probes` command share; a model over it is skipped with its message.
    if trace.mode == Mode::ShapeOnly {
        let why = "shape-only run: no values to compare";
        return names.iter().map(|n| CheckResult::skip(*n, why)).collect();
    }
    vec![positionwise(subject), causality(trace, subject)]
}

/// Token positions to perturb: all of them for short sequences.
fn positions(t: usize) -> Vec<usize> {
    if t <= 16 {
        (0..t).collect()
    } else {
        vec![0, 1, t / 2, t - 1]
    }
}

fn positionwise(subject: Subject) -> CheckResult {
    let (name, cfg) = (CheckName::Positionwise, subject.cfg);
    let ts = positions(cfg.seq);
    let runs = match influence(subject, Kind::Positionwise, &ts) {
        Ok(r) => r,
        Err(e) => return CheckResult::skip(name, e),
    };
    for run in &runs {
        let t = run.token;
        for row in &run.rows {
            if let Some((bb, tt, d)) = row
                .changed()
                .find(|&(bb, tt, _)| Kind::Positionwise.forbids(t, bb, tt))
            {
                return CheckResult::fail(
                    name,
                    &row.path,
                    format!(
                        "{}: changing token {t} of batch 0 changed token {tt} of batch {bb} (|Δ| up to {d:.2e})",
                        row.path
                    ),
                );
            }
        }
    }
    CheckResult::pass(
        name,
        format!(
            "every norm and MLP of {} blocks changed only the token that changed ({} tokens tried)",
            cfg.layers,
            ts.len()
        ),
    )
}

fn causality(trace: &Trace, subject: Subject) -> CheckResult {
    let name = CheckName::Causality;
    if let Some(f) = &trace.failure {
        return CheckResult::skip(name, format!("the forward stops at {}", f.path));
    }
    let ts = positions(trace.config.seq);
    let runs = match influence(subject, Kind::Causality, &ts) {
        Ok(r) => r,
        Err(e) => return CheckResult::skip(name, e),
    };
    for run in &runs {
        let t = run.token;
        // Scores are compared after the mask, as weights.
        for row in run.rows.iter().filter(|r| r.op != "scores") {
            if let Some((bb, tt, d)) = row
                .changed()
                .find(|&(bb, tt, _)| Kind::Causality.forbids(t, bb, tt))
            {
                let whom = if bb == 0 {
                    format!("earlier position {tt}")
                } else {
                    format!("batch element {bb}")
                };
                return CheckResult::fail(
                    name,
                    &row.path,
                    format!(
                        "{}: changing token {t} of batch 0 changed {whom} (|Δ| up to {d:.2e})",
                        row.path
                    ),
                );
            }
        }
    }
    CheckResult::pass(
        name,
        format!(
            "changing a token changed no earlier position and no other batch element ({} tokens tried)",
            ts.len()
        ),
    )
}
