//! `routing`: in a mixture of experts, every token's update comes back.
//!
//! Each token is sent to k experts, so a block's experts together take
//! B·T·k rows: Σ_e n_e = B·T·k. Fewer means some token's route reached no
//! expert, and its share of the update never returns (a capacity that
//! drops tokens, the `moe-capacity` fault). And each token's k weights sum
//! to 1, so the combine adds one token's worth of update, neither more nor
//! less.
//!
//! Both are read from the trace's events alone (a replayed log is judged
//! the same way): the dispatches' shapes (n_e, d) and the route weights'
//! values. A shape-only run records each n_e's bound, not its count, so it
//! is skipped there.
//!
//! # Shapes
//! - `blockN.moe.top_k`, `.weights`: (B, T, k)
//! - `blockN.moe.expertE.dispatch`: (n_e, d)

use super::CheckResult;
use crate::trace::{CheckName, Event, Mode, OpKind, Trace};

/// How far each token's weights may sum from 1: f32's rounding of k
/// divisions.
const SUM_TOLERANCE: f64 = 1e-4;

/// Every mixture's routes all come back, each token's weights summing to 1.
#[must_use]
pub fn routing(trace: &Trace) -> CheckResult {
    let name = CheckName::Routing;
    // A forward that stopped (inside a mixture, say) left routes uncounted:
    // the check that stopped it judges that model.
    if let Some(skip) = super::stopped(name, trace) {
        return skip;
    }
    let mixtures = mixtures(&trace.events);
    if mixtures.is_empty() {
        return CheckResult::skip(name, "").said(crate::why::Why::new("check-routing-none"));
    }
    if trace.mode != Mode::Numeric {
        return CheckResult::skip(name, "").said(crate::why::Why::new("check-routing-shape-only"));
    }
    let mut unchecked_sums = 0;
    for m in &mixtures {
        let routes = m.top_k.shape.iter().product::<usize>();
        // Under expert parallelism what comes back to this device is its
        // all-to-all's rows; on one device, what its experts took.
        let taken: usize = match m.returned {
            Some(e) => e.shape.first().copied().unwrap_or(0),
            None => m.dispatches.iter().filter_map(|e| e.shape.first()).sum(),
        };
        if taken != routes {
            // Short enough for one line of the Checks tab at 80 columns.
            return CheckResult::fail(name, &m.combine_path(), "").said(
                crate::why::Why::new("check-routing-lost")
                    .arg("path", m.combine_path())
                    .arg("taken", taken.to_string())
                    .arg("routes", routes.to_string()),
            );
        }
        match m.weights.and_then(|w| w.values.as_ref().map(|v| (w, v))) {
            Some((w, values)) => {
                let k = w.shape.last().copied().unwrap_or(1).max(1);
                let off = values
                    .chunks(k)
                    .enumerate()
                    .map(|(t, row)| (t, row.iter().sum::<f64>()))
                    .find(|(_, s)| (s - 1.0).abs() > SUM_TOLERANCE);
                if let Some((t, sum)) = off {
                    return CheckResult::fail(name, &w.path, "").said(
                        crate::why::Why::new("check-routing-sum")
                            .arg("path", w.path.as_str())
                            .arg("t", t.to_string())
                            .arg("k", k.to_string())
                            .arg("sum", format!("{sum:.4}")),
                    );
                }
            }
            None => unchecked_sums += 1,
        }
    }
    let first = &mixtures[0];
    let routes = first.top_k.shape.iter().product::<usize>();
    let k = first.top_k.shape.last().copied().unwrap_or(0);
    CheckResult::pass(name, "").said(
        crate::why::Why::new("check-routing-pass")
            .arg("k", k)
            .arg("routes", routes.to_string())
            .arg("mixtures", mixtures.len().to_string())
            .arg("unchecked", unchecked_sums),
    )
}

/// One mixture's events: its top-k choice, its weights and its dispatches.
struct Mixture<'a> {
    top_k: &'a Event,
    weights: Option<&'a Event>,
    dispatches: Vec<&'a Event>,
    /// Under expert parallelism, the all-to-all that brings this
    /// device's routes back: (b·T·k, d).
    returned: Option<&'a Event>,
}

impl Mixture<'_> {
    /// The combine's path: `blockN.moe.combine`.
    fn combine_path(&self) -> String {
        let scope = self.top_k.path.rsplit_once('.').map_or("", |(s, _)| s);
        format!("{scope}.combine")
    }
}

/// Every mixture of a trace, from its top-k event on: the weights and the
/// dispatches recorded in the same scope before the next top-k.
fn mixtures(events: &[Event]) -> Vec<Mixture<'_>> {
    // `blockN.moe`: a mixture's steps share the path's first two parts.
    let scope = |e: &Event| e.path.split('.').take(2).collect::<Vec<_>>().join(".");
    let mut out: Vec<Mixture> = Vec::new();
    for e in events {
        match e.op {
            OpKind::TopK => out.push(Mixture {
                top_k: e,
                weights: None,
                dispatches: Vec::new(),
                returned: None,
            }),
            // The return: the last all-to-all of the mixture's scope.
            OpKind::AllToAll if e.path.ends_with(".combine.all_to_all") => {
                if let Some(m) = out.last_mut().filter(|m| scope(m.top_k) == scope(e)) {
                    m.returned = Some(e);
                }
            }
            OpKind::RouteWeights | OpKind::Dispatch => {
                if let Some(m) = out.last_mut().filter(|m| scope(m.top_k) == scope(e)) {
                    if e.op == OpKind::Dispatch {
                        m.dispatches.push(e);
                    } else {
                        m.weights = Some(e);
                    }
                }
            }
            _ => {}
        }
    }
    out
}
