//! The checks: each reads a finished [`Trace`] (the probes also re-run the
//! model on perturbed inputs) and gives a named verdict with a detail line.
//!
//! Checks that judge one step (`op-shapes`, `residual`, `stream`,
//! `finite`) also stopped the forward where they failed; the others judge
//! the whole run. `params` compares the built weights with the closed form;
//! `reference` compares the blocks' outputs with a plain f64 forward
//! written apart from the fast backend (under a fault, with those of the
//! declared architecture) on the same weights and input.

pub mod contract;
pub mod decode;
pub mod evidence;
pub mod grads;
pub mod influence;
pub mod ops;
pub mod params;
pub mod plain;
pub mod probe;
pub mod reference;
pub mod routing;
pub mod shard;

use crate::config::Fault;
use crate::config::Placement;
use crate::trace::Trace;
pub use crate::trace::verdict::{CheckName, CheckResult, Status};

/// Every check on `trace` of the seeded model: the contract checks,
/// `params`, the probes, then `reference`.
#[must_use]
pub fn all(trace: &Trace) -> Vec<CheckResult> {
    all_of(trace, influence::Subject::seeded(&trace.config))
}

/// As [`all`], the probes re-running `subject` (the traced config with its
/// loaded weights or input, if the trace had them).
#[must_use]
pub fn all_of(trace: &Trace, subject: influence::Subject) -> Vec<CheckResult> {
    // A run with the backward: its forward as any, then `grads`.
    if trace.config.backward {
        return grads::all(trace, subject);
    }
    // A split model: the shown device's trace, then `shard`.
    if trace.config.devices.many() {
        return shard::all(trace, subject);
    }
    // A run that decodes is judged pass by pass.
    if trace.config.decode > 0 {
        return decode::all(trace, subject);
    }
    let mut out = contract::all(trace);
    out.push(params::params(trace));
    out.extend(probe::all(trace, subject));
    out.push(reference::reference(trace, subject));
    out
}

/// Every check of a trace log, whoever wrote it: the contract checks
/// judged again from its events alone (op shapes as recorded, and as
/// torch's shape rules give them from each step's operands; stream,
/// residual with dtypes, returns, wiring, finite), `positionwise` and
/// `causality` judged from the log's evidence lines by the probes' own
/// judge ([`evidence`]), and `params` and `reference` as shapetrace's own
/// summary gave them, or skipped (they need the model). The summary is never believed: a verdict of its that its
/// evidence contradicts, or a count that its events do not hold, fails
/// the check it concerns.
#[must_use]
pub fn of_log(replay: &crate::trace::log::Replay) -> Vec<CheckResult> {
    // The backward's events are judged by `grads`, which needs the model.
    let forward = grads::forward_part(&replay.trace);
    let trace = &forward;
    let mut out = decode::contract(trace);
    for c in &mut out {
        if c.name == CheckName::OpShapes
            && c.status != Status::Fail
            && let Some(r) = ops::op_shapes(trace)
        {
            *c = r;
        }
    }
    if let Some(counts) = replay.counts {
        let held = [
            (
                CheckName::OpShapes,
                "events",
                counts.events,
                replay.trace.events.len(),
            ),
            (
                CheckName::Returns,
                "departures",
                counts.departures,
                replay.trace.departures().count(),
            ),
            (
                CheckName::Residual,
                "residual_adds",
                counts.residual_adds,
                replay.trace.residual_adds().count(),
            ),
        ];
        for (name, what, said, found) in held.into_iter().filter(|h| h.2 != h.3) {
            let why = crate::why::Why::new("check-summary-count")
                .arg("what", what)
                .arg("said", said)
                .arg("found", found);
            if let Some(c) = out.iter_mut().find(|c| c.name == name && c.ok) {
                *c = CheckResult::fail(name, "", "").said(why);
            }
        }
    }
    // What needs the model: shapetrace's own summary's verdict, which it
    // judged on the model; another program's log gives none.
    let needs_model = |name: CheckName| {
        let logged = replay.checks.iter().flatten().find(|c| c.name == name);
        match logged {
            Some(c) if !replay.foreign() => c.clone(),
            _ => CheckResult::skip(
                name,
                "not in the log: it needs the model, which the log does not hold",
            ),
        }
    };
    out.push(needs_model(CheckName::Params));
    out.push(evidence::judged(replay, CheckName::Positionwise));
    out.push(evidence::judged(replay, CheckName::Causality));
    out.push(needs_model(CheckName::Reference));
    if trace.config.decode > 0 {
        out.push(needs_model(CheckName::Decode));
    }
    if trace.config.devices.many() {
        out.push(needs_model(CheckName::Shard));
    }
    // A log with the backward's events, whatever its header says.
    if replay.trace.config.backward || replay.trace.events.iter().any(grads::is_backward) {
        out.push(grads::of_log(&replay.trace));
    }
    out
}

/// The verdicts a replay shows. Another program's log: [`of_log`]'s,
/// judged from its events and evidence, never its summary's. Shapetrace's
/// own log: each as its summary gave it (a replay never re-judges what
/// shapetrace judged), and those it did not give as [`of_log`] gives
/// them. Empty for a log without its summary.
#[must_use]
pub fn as_logged(replay: &crate::trace::log::Replay) -> Vec<CheckResult> {
    let Some(logged) = &replay.checks else {
        return Vec::new();
    };
    if replay.foreign() {
        return of_log(replay);
    }
    of_log(replay)
        .into_iter()
        .map(|judged| {
            logged
                .iter()
                .find(|c| c.name == judged.name)
                .cloned()
                .unwrap_or(judged)
        })
        .collect()
}

/// The checks that catch `fault` on `cfg`'s model: its row's `caught_by`
/// ([`crate::config::FaultSpec`]), less
/// `causality` where the fault mixes tokens only within a sequence and the
/// model is an encoder, whose influence may spread both ways (mixing the
/// heads of different tokens, a norm over T): `reference` still sees them.
/// With parallel residuals an update off (B,T,d) meets the other update
/// first, at `update`, and with sandwich norms its output norm, whose γ
/// (d): `op-shapes` refuses either before any residual add. Split across
/// devices, two faults are caught by a shape where one device is not.
#[must_use]
pub fn catches_on(fault: Fault, cfg: &crate::config::ModelConfig) -> Vec<CheckName> {
    let within_sequence = matches!(fault, Fault::MergeNoTranspose | Fault::NormOverSeq);
    let d = cfg.devices;
    // Split across devices, a shape that was home no longer is: a device's
    // merged heads are h·hd/N wide (`residual` meets them), and under
    // sequence parallelism a partial sum is (B,T,d) where the stream is
    // (B,T/N,d) (`stream`, judging the sublayer's output, stops first).
    match fault {
        Fault::NoOutProj if d.split() => return vec![CheckName::Residual],
        Fault::TpNoAllreduce if d.sp => return vec![CheckName::Stream],
        _ => {}
    }
    fault
        .spec()
        .caught_by
        .iter()
        .map(|&c| match c {
            CheckName::Residual if cfg.parallel || cfg.norms.placement == Placement::Sandwich => {
                CheckName::OpShapes
            }
            c => c,
        })
        .filter(|&c| !(cfg.encoder && within_sequence && c == CheckName::Causality))
        .collect()
}

/// The checks that catch `fault` on `cfg` ([`catches_on`]) when this run
/// judged none of them (each skipped: a shape-only run, a model over the
/// probes' limit), with the first one's reason: a fault no check could
/// catch must not read as held. `None` when at least one of them ran.
#[must_use]
pub fn unjudged(
    fault: Fault,
    cfg: &crate::config::ModelConfig,
    checks: &[CheckResult],
) -> Option<(Vec<CheckName>, String)> {
    let catchers = catches_on(fault, cfg);
    let found: Vec<&CheckResult> = catchers
        .iter()
        .filter_map(|c| checks.iter().find(|r| r.name == *c))
        .collect();
    let all_skipped = !found.is_empty()
        && found.len() == catchers.len()
        && found.iter().all(|r| r.status == Status::Skip);
    all_skipped.then(|| (catchers, found[0].detail.clone()))
}

/// The skip of a check `name` that re-runs the model of `cfg`, when it
/// cannot: the forward of `trace` stopped (the check that stopped it has
/// judged that model), the run has no values to compare, or the model is
/// over the re-runs' size limit. `None` when it can.
pub(crate) fn cannot_rerun(
    name: CheckName,
    trace: &Trace,
    cfg: &crate::config::ModelConfig,
) -> Option<CheckResult> {
    if let Some(skip) = stopped(name, trace) {
        return Some(skip);
    }
    if trace.mode == crate::trace::Mode::ShapeOnly {
        let why = crate::why::Why::new("check-shape-only-compare");
        return Some(CheckResult::skip(name, "").said(why));
    }
    influence::rerunnable_why(cfg)
        .err()
        .map(|why| CheckResult::skip(name, "").said(why))
}

/// The skip of check `name` on a trace whose forward stopped: the check
/// that stopped it has judged that model already. `None` when it ran on.
pub(crate) fn stopped(name: CheckName, trace: &Trace) -> Option<CheckResult> {
    trace.failure.as_ref().map(|f| {
        CheckResult::skip(name, "")
            .said(crate::why::Why::new("check-stopped").arg("path", f.path.as_str()))
    })
}
