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
use crate::shape::{Axis, joined};
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
    first_leak(runs).map_or(Ok(()), |(_, l)| Err(l))
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
    worded(
        kind,
        &runs,
        &Origin {
            blocks: cfg.layers,
            tried: ts.len(),
            log: None,
        },
    )
}

/// Where a probe's runs came from, for its verdict's words: shapetrace's
/// own model re-run, or the evidence lines of another program's log.
pub(crate) struct Origin<'a> {
    /// Blocks the probe covered.
    pub blocks: usize,
    /// Tokens moved.
    pub tried: usize,
    /// For a log's evidence: its trace (each event's op and `line`) and
    /// the module each run ran alone (positionwise), one per run.
    pub log: Option<(&'a Trace, Vec<Option<&'a str>>)>,
}

/// The first run of `runs` that leaks, with its index.
fn first_leak(runs: &[Influence]) -> Option<(usize, Leak)> {
    runs.iter()
        .enumerate()
        .find_map(|(i, r)| r.first_leak().map(|l| (i, l)))
}

/// The verdict of probe `kind` on `runs`, in words: one wording for
/// shapetrace's own probes and for a log's evidence, which adds where the
/// leak happened in the writer's code, its op and the op's likely causes.
pub(crate) fn worded(kind: Kind, runs: &[Influence], origin: &Origin) -> CheckResult {
    let name = kind.check();
    if runs
        .iter()
        .all(|r| r.rows.iter().all(|row| !kind.judges(row)))
    {
        return CheckResult::skip(name, "").said(crate::why::Why::new("check-probe-no-tensor"));
    }
    match (first_leak(runs), kind) {
        (Some((i, l)), Kind::Positionwise) => {
            let why = crate::why::Why::new("check-positionwise-fail")
                .arg("path", l.path.as_str())
                .arg("token", l.token.to_string())
                .arg("pos", l.pos.to_string())
                .arg("batch", l.batch.to_string())
                .arg("delta", format!("{:.2e}", l.delta));
            CheckResult::fail(name, &l.path, "").said(from_log(why, origin, i, &l.path))
        }
        (Some((i, l)), Kind::Causality) => {
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
            let why = crate::why::Why::new("check-causality-fail")
                .arg("path", l.path.as_str())
                .arg("token", l.token.to_string())
                .arg("what", what)
                .arg("pos", l.pos.to_string())
                .arg("batch", l.batch.to_string())
                .arg("mask", mask_kind)
                .arg("mw", mw.to_string())
                .arg("w", w.to_string())
                .arg("last", (l.token + w).saturating_sub(1).to_string())
                .arg("delta", format!("{:.2e}", l.delta));
            CheckResult::fail(name, &l.path, "").said(from_log(why, origin, i, &l.path))
        }
        (None, Kind::Positionwise) => CheckResult::pass(name, "").said(
            crate::why::Why::new("check-positionwise-pass")
                .arg("blocks", origin.blocks)
                .arg("tried", origin.tried),
        ),
        (None, Kind::Causality) => {
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
                .arg("tried", origin.tried);
            CheckResult::pass(name, "").said(why)
        }
    }
}

/// A failure `why` of shapetrace's own probe as a log's evidence words
/// it (`check-evidence-…`): the same words, then the leaking event's op,
/// its `line` in the writer's code and the op's likely causes; and for
/// positionwise, the module that ran alone. `why` itself for a model's.
fn from_log(why: crate::why::Why, origin: &Origin, run: usize, path: &str) -> crate::why::Why {
    let Some((trace, modules)) = &origin.log else {
        return why;
    };
    let event = trace.events.iter().find(|e| e.path == path);
    let op = event.map_or("", crate::trace::Event::op_label);
    let mut why = why
        .arg("op", if op.is_empty() { "?" } else { op })
        .arg(
            "line",
            event.and_then(|e| e.line.as_deref()).unwrap_or("none"),
        )
        .arg("cause", cause(op, event))
        .arg(
            "module",
            modules.get(run).copied().flatten().unwrap_or("none"),
        );
    if why.key == "check-causality-fail" {
        why = heads_cut(trace, why);
    }
    why.key = why.key.replacen("check-", "check-evidence-", 1);
    why
}

/// The tell of heads cut without their transpose, as the arguments of
/// the catalog's `check-heads-cut`: the first attention whose scores (the
/// product feeding a softmax, through its scaling and mask; else the
/// softmax's own input) do not end in (Tq, Tk), and the view that cut its
/// heads: the nearest `view`/`reshape` back through the scores' inputs,
/// within their block and with no transpose between, whose axes hold `h`
/// and `hd`. `scores` is `none` when the log shows no such tell.
fn heads_cut(trace: &crate::trace::Trace, why: crate::why::Why) -> crate::why::Why {
    let found = trace.events.iter().enumerate().find_map(|(i, e)| {
        let op = e.op_label().to_ascii_lowercase();
        if !matches!(op.as_str(), "softmax" | "log_softmax") {
            return None;
        }
        let before = &trace.events[..i];
        let scores = scores_of(before, e)?;
        match scores.axes.as_slice() {
            [.., Axis::Query, Axis::Key] => return None,
            [_, _, ..] => {}
            _ => return None,
        }
        let cut = cut_of(before, scores)?;
        Some((scores, cut))
    });
    let Some((scores, cut)) = found else {
        return why
            .arg("scores", "none")
            .arg("scores_axes", "")
            .arg("pair", "other")
            .arg("cut", "none");
    };
    let pair = match scores.axes.as_slice() {
        [.., Axis::Heads, Axis::Heads] => "heads",
        _ => "other",
    };
    let at = |e: &crate::trace::Event| e.line.clone().unwrap_or_else(|| e.path.clone());
    why.arg("scores", at(scores))
        .arg("scores_axes", format!("({})", joined(&scores.axes, ", ")))
        .arg("pair", pair)
        .arg("cut", at(cut))
}

/// The last of `events` whose path is `path`.
fn event_at<'a>(events: &'a [crate::trace::Event], path: &str) -> Option<&'a crate::trace::Event> {
    events.iter().rev().find(|e| e.path == path)
}

/// The scores a softmax `e` normalised: the product (matmul, einsum,
/// bmm) its input came from through element-wise steps (scale, mask,
/// bias), else the step that made its input.
fn scores_of<'a>(
    events: &'a [crate::trace::Event],
    e: &crate::trace::Event,
) -> Option<&'a crate::trace::Event> {
    let input = event_at(events, e.inputs.first()?)?;
    let mut at = input;
    // A step back is always to an earlier event: no loop.
    for _ in 0..events.len() {
        let op = at.op_label().trim_end_matches('_').to_ascii_lowercase();
        match op.as_str() {
            "matmul" | "einsum" | "bmm" | "baddbmm" | "scores" => return Some(at),
            "mul" | "div" | "truediv" | "add" | "sub" | "masked_fill" | "where" | "scale"
            | "float" | "to" | "type_as" | "cast" | "tanh" | "clamp" | "contiguous" => {}
            _ => return Some(input),
        }
        // Each step is its index: what it read comes before it.
        let earlier = &events[..at.step.min(events.len())];
        let Some(next) = at.inputs.first().and_then(|p| event_at(earlier, p)) else {
            return Some(input);
        };
        at = next;
    }
    Some(input)
}

/// The view that cut the heads of `scores`: the nearest `view` or
/// `reshape` back through its inputs, in its block, with no transpose,
/// permute or swapaxes between, whose axes hold `h` and `hd`.
fn cut_of<'a>(
    events: &'a [crate::trace::Event],
    scores: &'a crate::trace::Event,
) -> Option<&'a crate::trace::Event> {
    let block = scores.block();
    let mut queue = std::collections::VecDeque::from([scores]);
    let mut seen: Vec<&str> = Vec::new();
    while let Some(e) = queue.pop_front() {
        for p in &e.inputs {
            if seen.contains(&p.as_str()) {
                continue;
            }
            seen.push(p);
            let Some(x) = event_at(events, p).filter(|x| x.block() == block && x.step < e.step)
            else {
                continue;
            };
            let op = x.op_label().trim_end_matches('_').to_ascii_lowercase();
            match op.as_str() {
                "transpose" | "permute" | "swapaxes" | "swapdims" => {}
                "view" | "reshape" if has(x, &Axis::Heads) && has(x, &Axis::HeadDim) => {
                    return Some(x);
                }
                _ => queue.push_back(x),
            }
        }
    }
    None
}

/// Whether event `e` names axis `a`.
fn has(e: &crate::trace::Event, a: &Axis) -> bool {
    e.axes.contains(a)
}

/// The kind of mistake an op that leaks most likely is, for the
/// catalog's `check-leak-cause`: `view`, `softmax`, `mask`, `reduction`,
/// `batch` (a reduction over the batch axis), `product`, or `other`.
fn cause(op: &str, event: Option<&crate::trace::Event>) -> &'static str {
    let op = op.trim_end_matches('_').to_ascii_lowercase();
    // An add onto the (Tq, Tk) scores is a mask's.
    let on_scores = event.is_some_and(|e| {
        e.role == crate::trace::Role::Scores
            || matches!(e.axes.as_slice(), [.., Axis::Query, Axis::Key])
    });
    match op.as_str() {
        "view" | "reshape" | "flatten" | "unflatten" | "split_heads" | "merge_heads" => "view",
        "softmax" | "log_softmax" => "softmax",
        "masked_fill" | "where" | "tril" | "triu" => "mask",
        "add" | "add_op" | "sub" if on_scores => "mask",
        // A reduction whose output kept the batch axis at 1: over dim=0.
        _ if event.is_some_and(|e| e.axes.iter().any(Axis::mixes_batch)) => "batch",
        "mean" | "sum" | "var" | "std" | "amax" | "amin" | "max" | "min" | "var_mean"
        | "std_mean" | "logsumexp" | "norm" | "layernorm" | "layer_norm" | "rmsnorm"
        | "rms_norm" | "group_norm" | "batch_norm" | "instance_norm" => "reduction",
        "matmul" | "bmm" | "einsum" | "baddbmm" | "mm" | "scores" | "weighted_sum" => "product",
        _ => "other",
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

#[cfg(test)]
mod tests {
    use super::{Axis, cause};
    use crate::trace::Event;

    fn event(op: &str, axes: &[&str]) -> Event {
        let line = serde_json::json!({
            "step": 0, "path": "block1.x", "op": "other", "op_name": op,
            "shape": vec![2; axes.len()], "axes": axes, "dtype": "f32", "on_stream": false,
            "departs": false, "returns": false, "inputs": [], "formula": "", "stats": null,
        });
        serde_json::from_value(line).unwrap()
    }

    /// A reduction or reshape whose output mixed the batch's rows reads
    /// `batch`; an add onto the (Tq, Tk) scores is a mask's.
    #[test]
    fn a_leak_is_blamed_by_the_axes_of_its_output() {
        for axes in [
            ["[B→1]", "T", "d"],
            ["[B·T]", "d", "1"],
            ["[B·T·d→4]", "T", "d"],
        ] {
            assert_eq!(
                cause("mean", Some(&event("mean", &axes))),
                "batch",
                "{axes:?}"
            );
        }
        assert_eq!(
            cause("mean", Some(&event("mean", &["B", "[T→1]", "d"]))),
            "reduction"
        );
        let scores = event("add", &["B", "h", "Tq", "Tk"]);
        assert_eq!(scores.axes[2..], [Axis::Query, Axis::Key]);
        assert_eq!(cause("add", Some(&scores)), "mask");
        assert_eq!(cause("add", Some(&event("add", &["B", "T", "d"]))), "other");
    }
}
