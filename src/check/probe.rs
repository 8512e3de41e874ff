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
use super::influence::{Influence, Kind, Leak, Subject, tokens};
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
        let why = crate::why::Why::new("check-shape-only-compare");
        return kinds
            .iter()
            .map(|k| CheckResult::skip(k.check(), "").said(why.clone()))
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
    let runs = match super::influence::influence_why(subject, kind, &ts) {
        Ok(r) => r,
        Err(e) => return CheckResult::skip(name, "").said(e),
    };
    if runs
        .iter()
        .all(|r| r.rows.iter().all(|row| !kind.judges(row)))
    {
        return CheckResult::skip(name, "").said(crate::why::Why::new("check-probe-no-tensor"));
    }
    match (verdict(&runs), kind) {
        (Err(l), Kind::Positionwise) => CheckResult::fail(name, &l.path, "").said(
            crate::why::Why::new("check-positionwise-fail")
                .arg("path", l.path.as_str())
                .arg("token", l.token.to_string())
                .arg("pos", l.pos.to_string())
                .arg("batch", l.batch.to_string())
                .arg("delta", format!("{:.2e}", l.delta)),
        ),
        (Err(l), Kind::Causality) => {
            let mask = runs.iter().find_map(|r| r.pattern.as_ref()).map(|p| p.mask);
            let (what, w) = match mask {
                _ if l.missing => ("missing", 0),
                _ if l.batch != 0 => ("batch", 0),
                Some(Masking::Window(w)) if l.pos > l.token => ("window", w),
                _ => ("earlier", 0),
            };
            let (mask_kind, mw) = match mask {
                Some(Masking::Window(w)) => ("window", w),
                Some(Masking::TwoWay | Masking::Full) => ("two-way", 0),
                _ => ("causal", 0),
            };
            debug_assert_eq!(
                mask_name(mask),
                crate::why::Why::new("check-mask-name")
                    .arg("mask", mask_kind)
                    .arg("w", mw.to_string())
                    .text()
            );
            CheckResult::fail(name, &l.path, "").said(
                crate::why::Why::new("check-causality-fail")
                    .arg("path", l.path.as_str())
                    .arg("token", l.token.to_string())
                    .arg("what", what)
                    .arg("pos", l.pos.to_string())
                    .arg("batch", l.batch.to_string())
                    .arg("mask", mask_kind)
                    .arg("mw", mw.to_string())
                    .arg("w", w.to_string())
                    .arg("last", (l.token + w).saturating_sub(1).to_string())
                    .arg("delta", format!("{:.2e}", l.delta)),
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
