//! Behavioural probes: re-run the model on a perturbed input and see which
//! output rows change.
//!
//! - `positionwise`: each norm and MLP, run alone on a random (B,T,d)
//!   input, changes only token s when only token s of its input changes.
//! - `causality`: changing token t of batch element 0 of x0 changes no
//!   output at a position < t, and nothing in another batch element.
//!
//! Both are judged by [`Influence::first_leak`], which the `probes`
//! command and the Probes tab read too.

use super::CheckResult;
use super::influence::{Influence, Kind, Leak, Subject, influence, tokens};
use crate::ops::Masking;
use crate::trace::{Mode, Trace};

/// Both probes on the model of `trace`, re-run as `subject` (whose config
/// is the trace's).
#[must_use]
pub fn all(trace: &Trace, subject: Subject) -> Vec<CheckResult> {
    let kinds = [Kind::Positionwise, Kind::Causality];
    // The size limit lives in `influence`, which the Probes tab and the
    // `probes` command share; a model over it is skipped with its message.
    if trace.mode == Mode::ShapeOnly {
        let why = "shape-only run: no values to compare";
        return kinds
            .iter()
            .map(|k| CheckResult::skip(k.check(), why))
            .collect();
    }
    kinds.iter().map(|&k| probe(trace, subject, k)).collect()
}

/// The verdict of probe `kind` over `runs`: the first token whose run
/// leaks, as a failure.
///
/// # Errors
/// The first leak.
pub fn verdict(runs: &[Influence]) -> Result<(), Leak> {
    runs.iter()
        .find_map(Influence::first_leak)
        .map_or(Ok(()), Err)
}

/// Probe `kind`, every token of [`tokens`] moved in turn.
fn probe(trace: &Trace, subject: Subject, kind: Kind) -> CheckResult {
    let name = kind.check();
    if kind == Kind::Causality
        && let Some(f) = &trace.failure
    {
        return CheckResult::skip(name, "")
            .said(crate::why::Why::new("check-probe-stopped").arg("path", f.path.as_str()));
    }
    let cfg = subject.cfg;
    let ts = tokens(cfg.seq);
    let runs = match influence(subject, kind, &ts) {
        Ok(r) => r,
        Err(e) => return CheckResult::skip(name, e),
    };
    if runs
        .iter()
        .all(|r| r.rows.iter().all(|row| !kind.judges(row)))
    {
        return CheckResult::skip(name, "nothing to judge: no tensor to compare");
    }
    match (verdict(&runs), kind) {
        (Err(l), Kind::Positionwise) => CheckResult::fail(
            name,
            &l.path,
            format!(
                "{}: changing token {} of batch 0 changed token {} of batch {} (|Δ| up to {:.2e})",
                l.path, l.token, l.pos, l.batch, l.delta
            ),
        ),
        (Err(l), Kind::Causality) => {
            let mask = runs.iter().find_map(|r| r.pattern.as_ref()).map(|p| p.mask);
            let what = match mask {
                _ if l.missing => format!(
                    "left query {} unchanged, though the declared {} lets it read token {}",
                    l.pos,
                    mask_name(mask),
                    l.token
                ),
                _ if l.batch != 0 => format!("changed batch element {}", l.batch),
                Some(Masking::Window(w)) if l.pos > l.token => format!(
                    "changed position {}, outside the sliding window of {w} (rows {}..={} may change)",
                    l.pos,
                    l.token,
                    l.token + w - 1
                ),
                _ => format!("changed earlier position {}", l.pos),
            };
            CheckResult::fail(
                name,
                &l.path,
                format!(
                    "{}: changing token {} of batch 0 {what} (|Δ| up to {:.2e})",
                    l.path, l.token, l.delta
                ),
            )
        }
        (Ok(()), Kind::Positionwise) => CheckResult::pass(name, "").said(
            crate::why::Why::new("check-positionwise-pass")
                .arg("blocks", cfg.layers)
                .arg("tried", ts.len()),
        ),
        (Ok(()), Kind::Causality) => {
            let p = runs.iter().find_map(|r| r.pattern.as_ref());
            let two_way = matches!(p.map(|p| p.mask), Some(Masking::TwoWay | Masking::Full));
            let (mask, w) = match p.map(|p| p.mask) {
                Some(Masking::Window(w)) => ("window", w),
                Some(Masking::TwoWay | Masking::Full) => ("two-way", 0),
                _ => ("causal", 0),
            };
            let why = crate::why::Why::new("check-causality-pass")
                .arg("spread", if two_way { "two-way" } else { "causal" })
                .arg("path", p.map_or("", |p| p.path.as_str()))
                .arg("mask", if p.is_some() { mask } else { "none" })
                .arg("w", w)
                .arg("tried", ts.len());
            CheckResult::pass(name, "").said(why)
        }
    }
}

/// The declared mask in words.
fn mask_name(mask: Option<Masking>) -> String {
    match mask {
        Some(Masking::Window(w)) => format!("sliding window of {w}"),
        Some(Masking::TwoWay | Masking::Full) => "two-way attention".into(),
        _ => "causal mask".into(),
    }
}
