//! `positionwise` and `causality` of another program's log, judged from
//! its evidence lines by the code that judges shapetrace's own probes:
//! each line becomes an [`Influence`] (its rows [`RowChange`]s, the
//! pre-mask scores as `scores`, which causality does not judge), and
//! the probes' own wording gives the verdict in the same words, plus
//! where in the writer's code the first leak happened.
//!
//! The summary's verdicts are never believed: one that disagrees with
//! the evidence fails the check, and one without evidence is a skip.

use super::influence::{Influence, Kind, RowChange};
use super::probe::{Origin, worded};
use super::{CheckName, CheckResult, Status};
use crate::trace::log::{Evidence, EvidenceRow, Probe, Replay};
use crate::trace::{Event, OpKind, Role};
use crate::why::Why;

/// The row of an evidence line as a probe's [`RowChange`], in the role
/// `role` of the log's event at its path, but for the scores: the row's
/// own `pre_mask` says whether causality skips it.
#[must_use]
pub fn row_change(r: &EvidenceRow, role: Option<Role>) -> RowChange {
    let op = if r.pre_mask {
        OpKind::Scores
    } else {
        r.op.parse().unwrap_or(OpKind::Other)
    };
    // The row says whether it is pre-mask: it alone is skipped.
    let role = match role {
        _ if r.pre_mask => Role::Scores,
        Some(Role::Scores) => Role::Other,
        Some(role) => role,
        None => Role::of_op(op, None),
    };
    RowChange {
        path: r.path.clone(),
        op,
        role,
        batch: r.batch,
        seq: r.seq,
        delta: r.delta.clone(),
        unweighed: None,
    }
}

/// An evidence line that ran, as a probe's run: its moved token and rows,
/// no declared pattern (the log declares no mask to compare with).
#[must_use]
pub fn influence(e: &Evidence, events: &[Event]) -> Option<Influence> {
    let roles: std::collections::HashMap<&str, Role> =
        events.iter().map(|x| (x.path.as_str(), x.role)).collect();
    let role = |path: &str| roles.get(path).copied();
    let kind = match e.probe {
        Probe::Causality => Kind::Causality,
        Probe::Positionwise => Kind::Positionwise,
    };
    Some(Influence {
        kind,
        token: e.token?,
        rows: e
            .rows
            .iter()
            .map(|r| row_change(r, role(&r.path)))
            .collect(),
        pattern: None,
    })
}

/// The probe of check `name`.
fn probe_of(name: CheckName) -> Option<(Probe, Kind)> {
    match name {
        CheckName::Causality => Some((Probe::Causality, Kind::Causality)),
        CheckName::Positionwise => Some((Probe::Positionwise, Kind::Positionwise)),
        _ => None,
    }
}

/// Check `name` (`causality` or `positionwise`) of `replay`, judged from
/// its evidence, then held against the summary's verdict if it gave one.
#[must_use]
pub fn judged(replay: &Replay, name: CheckName) -> CheckResult {
    let said = replay
        .checks
        .iter()
        .flatten()
        .find(|c| c.name == name)
        .map(|c| c.status);
    let judged = from_evidence(replay, name, said);
    match said {
        Some(s @ (Status::Pass | Status::Fail))
            if judged.status != s && judged.status != Status::Skip =>
        {
            disagrees(&judged, s)
        }
        _ => judged,
    }
}

/// The evidence's verdict of check `name`; `said`, the summary's, only
/// words the skip of a log without evidence.
fn from_evidence(replay: &Replay, name: CheckName, said: Option<Status>) -> CheckResult {
    let Some((probe, kind)) = probe_of(name) else {
        return CheckResult::skip(name, "");
    };
    let lines: Vec<&Evidence> = replay
        .evidence
        .iter()
        .filter(|e| e.probe == probe)
        .collect();
    let ran: Vec<&Evidence> = lines
        .iter()
        .copied()
        .filter(|e| e.token.is_some())
        .collect();
    if ran.is_empty() {
        if let Some(why) = lines.iter().find_map(|e| e.skipped.as_deref()) {
            return CheckResult::skip(name, "")
                .said(Why::new("check-evidence-skipped").arg("reason", why));
        }
        let says = said.map_or("none", Status::as_str);
        return CheckResult::skip(name, "").said(
            Why::new("check-evidence-none")
                .arg("check", name.as_str())
                .arg("says", says),
        );
    }
    let runs: Vec<Influence> = ran
        .iter()
        .filter_map(|e| influence(e, &replay.trace.events))
        .collect();
    let mut tokens: Vec<usize> = runs.iter().map(|r| r.token).collect();
    tokens.sort_unstable();
    tokens.dedup();
    let blocks = match probe {
        // The blocks whose modules ran alone.
        Probe::Positionwise => {
            let mut b: Vec<usize> = ran
                .iter()
                .filter_map(|e| e.module.as_deref().and_then(crate::trace::block_of))
                .collect();
            b.sort_unstable();
            b.dedup();
            b.len()
        }
        Probe::Causality => replay.trace.config.layers,
    };
    let origin = Origin {
        blocks,
        tried: tokens.len(),
        log: Some((
            &replay.trace,
            ran.iter().map(|e| e.module.as_deref()).collect(),
        )),
    };
    worded(kind, &runs, &origin)
}

/// The failure of a check whose summary said `said` where its evidence
/// gives `judged`: the evidence's own words, after what each says
/// (`check-disagrees-` and the evidence's message).
fn disagrees(judged: &CheckResult, said: Status) -> CheckResult {
    let why = match &judged.why {
        Some(w) => {
            let mut w = w.clone();
            w.key = format!("check-disagrees-{}", w.key);
            w
        }
        None => Why::new("check-disagrees-check-text").arg("text", judged.detail.as_str()),
    };
    let why = why
        .arg("says", said.as_str())
        .arg("judged", judged.status.as_str());
    let path = judged.path.as_deref().unwrap_or("");
    CheckResult::fail(judged.name, path, "").said(why)
}
