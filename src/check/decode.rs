//! The checks of a run that decodes ([`crate::model::decode`]), and the
//! `decode` check itself.
//!
//! A decoding trace holds one pass after another, `prefill.…` then
//! `decode1.…` …, each with its own stream shape. [`passes`] cuts it into
//! one trace a pass, its paths without the pass's name, so every check
//! judges a pass as it judges a forward: the prefill by every check (it is
//! the training-time forward of the prompt), each decode step by the
//! contract checks at (B, 1, d).
//!
//! `decode` re-runs the generation and, on the same weights, one full
//! forward of the whole sequence without a cache (the prompt and every
//! token fed after it): each pass's output must equal the full forward's
//! rows at its positions. A cache that drops the new key, a new token
//! turned at position 0, or a mask aligned at the top left passes every
//! shape and fails here.

use super::influence::Subject;
use super::reference::plain;
use super::{CheckName, CheckResult};
use crate::config::{DType, ModelConfig};
use crate::model::decode::{pass_name, step_seed};
use crate::model::{Model, input, record_on, tokens};
use crate::ops::Backend;
use crate::ops::numeric::{Numeric, Scalar, Tensor};
use crate::trace::recorder::{Recorder, Watch};
use crate::trace::{Event, Trace, pass_of, within_pass};
use crate::why::Why;
use ndarray::{ArrayD, Axis, concatenate};

/// Each pass of a decoding trace as a trace of its own: its name
/// (`prefill`, `decode1` …) and its events, renumbered from 0, their
/// paths and inputs without the pass's name (an input from an earlier
/// pass, the cache it wrote, is the state the pass starts from), under a
/// config of its length (T for the prefill, 1 for a step) and no decode.
#[must_use]
pub fn passes(trace: &Trace) -> Vec<(String, Trace)> {
    let steps = trace.config.decode;
    // One look at each event: the pass its path names, by number.
    let mut events: Vec<Vec<Event>> = vec![Vec::new(); steps + 1];
    for e in &trace.events {
        let Some(n) = pass_of(&e.path)
            .and_then(pass_number)
            .filter(|&n| n <= steps)
        else {
            continue;
        };
        let own = |p: &str| (pass_of(p) == pass_of(&e.path)).then(|| within_pass(p).to_string());
        let mut e = e.clone();
        // An earlier pass's cache is state the pass starts from, not a
        // step of its own.
        e.inputs = e.inputs.iter().filter_map(|i| own(i)).collect();
        e.path = within_pass(&e.path).to_string();
        e.step = events[n].len();
        events[n].push(e);
    }
    events
        .into_iter()
        .enumerate()
        .map(|(n, events)| {
            let name = pass_name(n);
            let failure = trace
                .failure
                .as_ref()
                .filter(|f| pass_of(&f.path) == Some(name.as_str()))
                .map(|f| crate::trace::Failure {
                    path: within_pass(&f.path).to_string(),
                    ..f.clone()
                });
            let config = ModelConfig {
                seq: if n == 0 { trace.config.seq } else { 1 },
                decode: 0,
                ..trace.config.clone()
            };
            let pass = Trace {
                stream_shape: config.stream_shape(),
                config,
                mode: trace.mode,
                anatomy: trace.anatomy.clone(),
                events,
                failure,
                seeded: trace.seeded.clone(),
            };
            (name, pass)
        })
        .collect()
}

/// `prefill` → 0, `decode3` → 3.
fn pass_number(pass: &str) -> Option<usize> {
    if pass == "prefill" {
        return Some(0);
    }
    pass.strip_prefix("decode")?.parse().ok()
}

/// Every check of a decoding `trace`: the prefill's as any forward's,
/// each decode step's contract checks (a step that breaks one takes its
/// place, the path naming the step), then `decode`.
#[must_use]
pub fn all(trace: &Trace, subject: Subject) -> Vec<CheckResult> {
    let passes = passes(trace);
    let Some(((_, prefill), steps)) = passes.split_first() else {
        return Vec::new();
    };
    // The probes re-run the prompt from x0, which never decodes.
    let mut out: Vec<CheckResult> = super::all_of(prefill, subject)
        .into_iter()
        .map(|c| {
            if c.path.is_some() {
                in_pass(c, "prefill")
            } else {
                c
            }
        })
        .collect();
    steps_break(&mut out, steps);
    out.push(decode(trace, subject));
    out
}

/// The contract checks of `trace`: of a decoding trace, the prefill's,
/// each replaced by the first decode step that breaks it.
#[must_use]
pub fn contract(trace: &Trace) -> Vec<CheckResult> {
    if trace.config.decode == 0 {
        return super::contract::all(trace);
    }
    let passes = passes(trace);
    let Some(((_, prefill), steps)) = passes.split_first() else {
        return Vec::new();
    };
    let mut out = super::contract::all(prefill);
    steps_break(&mut out, steps);
    out
}

/// A pass's failing verdict with the pass in its paths, as the trace
/// names them: `decode2.block1.resid_1`.
fn in_pass(c: CheckResult, pass: &str) -> CheckResult {
    let detail = match &c.path {
        Some(p) if c.detail.contains(p.as_str()) => {
            c.detail.replace(p.as_str(), &format!("{pass}.{p}"))
        }
        _ => format!("{pass}: {}", c.detail),
    };
    CheckResult {
        path: c.path.as_ref().map(|p| format!("{pass}.{p}")),
        detail,
        ..c
    }
}

/// Each decode step's contract checks: a step that breaks one takes its
/// verdict's place in `out`, the path naming the step.
fn steps_break(out: &mut [CheckResult], steps: &[(String, Trace)]) {
    // A step the run never reached (it stopped before) has nothing to judge.
    for (name, step) in steps.iter().filter(|(_, s)| !s.events.is_empty()) {
        for c in super::contract::all(step) {
            if c.ok {
                continue;
            }
            let Some(slot) = out.iter_mut().find(|o| o.name == c.name && o.ok) else {
                continue;
            };
            *slot = in_pass(c, name);
        }
    }
}

/// The `decode` verdict: each pass's output against a full forward of the
/// whole sequence without a cache, on the same weights.
#[must_use]
pub fn decode(trace: &Trace, subject: Subject) -> CheckResult {
    let name = CheckName::Decode;
    if let Some(skip) = super::cannot_rerun(name, trace, subject.cfg) {
        return skip;
    }
    // The cache path and the full forward are the same math in any
    // dtype; a 16-bit model's is judged unrounded, in f32, where 64·ε is
    // tight enough to see a wrong cache (bf16's 64·ε is 0.5).
    let model_dtype = subject.cfg.dtype;
    let unrounded = ModelConfig {
        dtype: if model_dtype.is_half() {
            DType::F32
        } else {
            model_dtype
        },
        ..subject.cfg.clone()
    };
    let cfg = &unrounded;
    let subject = Subject { cfg, ..subject };
    let judged = match cfg.dtype {
        DType::F64 => against_full::<f64>(subject),
        _ => against_full::<f32>(subject),
    };
    let dtype = if model_dtype.is_half() {
        format!("f32, the {model_dtype} model's math unrounded")
    } else {
        cfg.dtype.to_string()
    };
    let e = |v: f64| format!("{v:.1e}");
    match judged {
        Err(path) => CheckResult::skip(name, "").said(Why::new("check-stopped").arg("path", path)),
        Ok(Judged {
            largest,
            apart: None,
        }) => CheckResult::pass(name, "").said(
            Why::new("check-decode-pass")
                .arg("n", cfg.decode)
                .arg("what", what(cfg))
                .arg("delta", e(largest))
                .arg("tol", e(plain::tolerance(cfg.dtype)))
                .arg("dtype", dtype),
        ),
        // Inside the prompt no cache is read: the model itself lets a
        // position read later tokens, so no cache could give those rows.
        Ok(Judged { apart: Some(a), .. }) if a.position < cfg.seq => {
            CheckResult::fail(name, &a.path, "").said(
                Why::new("check-decode-noncausal")
                    .arg("path", a.path.as_str())
                    .arg("what", what(cfg))
                    .arg("pos", a.position)
                    .arg("delta", e(a.delta)),
            )
        }
        Ok(Judged { apart: Some(a), .. }) => CheckResult::fail(name, &a.path, "").said(
            Why::new("check-decode-fail")
                .arg("path", a.path.as_str())
                .arg("what", what(cfg))
                .arg("pos", a.position)
                .arg("delta", e(a.delta))
                .arg("allowed", e(a.allowed)),
        ),
    }
}

/// What a pass ends in: `logits`, or `output` without a vocabulary.
fn what(cfg: &ModelConfig) -> &'static str {
    if cfg.vocab.size.is_some() {
        "logits"
    } else {
        "output"
    }
}

/// How the passes compared with the full forward.
struct Judged {
    /// The largest |Δ| over every position.
    largest: f64,
    /// The first pass farther than allowed.
    apart: Option<Apart>,
}

/// A pass whose output is farther from the full forward's than allowed.
struct Apart {
    /// The pass's last step, e.g. `decode1.lm_head`.
    path: String,
    /// The first position (of T + N) farther than allowed.
    position: usize,
    /// Its largest |Δ| (∞ for a NaN).
    delta: f64,
    /// tol·(1 + max |full|) over that position.
    allowed: f64,
}

/// Re-runs `subject`'s generation in `F` and the full forward of what it
/// fed; `Err` names the step where either stopped.
fn against_full<F: Scalar>(subject: Subject) -> Result<Judged, String> {
    let cfg = subject.cfg;
    let backend = Numeric::<F>::new();
    let model = if cfg.vocab.size.is_some() {
        Model::build_lm(cfg, &backend, subject.source)
    } else {
        Model::build_from(cfg, &backend, subject.source)
    };
    let prompt = subject.tokens.cloned().or_else(|| tokens(cfg));
    let prompt = prompt.filter(|_| model.ends.is_some());
    let mut rec = Recorder::new(&backend, cfg.stream_shape(), Watch::default()).in_dtype(cfg.dtype);
    let generated = model.generate(&mut rec, cfg, prompt);
    let done = rec.finish();
    let stopped = |f: Option<crate::trace::Failure>| f.map_or_else(String::new, |f| f.path);
    let Ok(generated) = generated else {
        return Err(stopped(done.failure));
    };
    // Each pass's last step, where its output is.
    let mut last_paths: Vec<String> = (0..=cfg.decode).map(pass_name).collect();
    for e in &done.events {
        if let Some(last) = pass_of(&e.path)
            .and_then(pass_number)
            .and_then(|n| last_paths.get_mut(n))
        {
            last.clone_from(&e.path);
        }
    }
    let values = |t: &Tensor<F>| t.read().mapv(|v| v.f64());
    let outputs: Vec<ArrayD<f64>> = generated.outputs.iter().map(values).collect();
    // The whole sequence at once, without a cache: T + N positions.
    let full_cfg = ModelConfig {
        seq: cfg.seq + cfg.decode,
        decode: 0,
        ..cfg.clone()
    };
    let start = if generated.fed.is_empty() {
        let mut rows = vec![values(&input(cfg, &backend))];
        for n in 1..=cfg.decode {
            rows.push(values(
                &backend.normal(&[cfg.batch, 1, cfg.d_model], step_seed(cfg, n)),
            ));
        }
        let x0 = join(&rows).ok_or_else(String::new)?;
        (Some(Tensor::from(x0.mapv(F::of))), None)
    } else {
        let ids: Vec<_> = generated.fed.iter().map(|a| a.view()).collect();
        let ids = concatenate(Axis(1), &ids).map_err(|_| String::new())?;
        (None, Some(ids))
    };
    let (x0, ids) = start;
    let full = record_on(
        &full_cfg,
        &backend,
        &model,
        (x0, ids.as_ref()),
        &Watch::default(),
    );
    let Some(full) = full.output else {
        return Err(stopped(full.trace.failure));
    };
    let full = values(&full);
    Ok(compare(
        &outputs,
        &full,
        &last_paths,
        plain::tolerance(cfg.dtype),
    ))
}

/// The passes' outputs joined along the positions, (B, T + N, ·).
fn join(parts: &[ArrayD<f64>]) -> Option<ArrayD<f64>> {
    let views: Vec<_> = parts.iter().map(|p| p.view()).collect();
    concatenate(Axis(1), &views).ok()
}

/// Each pass's rows against the full forward's rows at the same positions.
fn compare(passes: &[ArrayD<f64>], full: &ArrayD<f64>, paths: &[String], tol: f64) -> Judged {
    let mut judged = Judged {
        largest: 0.0,
        apart: None,
    };
    let mut at = 0;
    for (pass, path) in passes.iter().zip(paths) {
        let n = pass.shape().get(1).copied().unwrap_or(0);
        for i in 0..n {
            let got = pass.index_axis(Axis(1), i);
            let want = full.index_axis(Axis(1), at + i);
            let delta = got
                .iter()
                .zip(want.iter())
                .map(|(g, w)| {
                    if (g - w).is_nan() {
                        f64::INFINITY
                    } else {
                        (g - w).abs()
                    }
                })
                .fold(0.0, f64::max);
            let allowed = tol * (1.0 + want.iter().fold(0.0_f64, |m, v| m.max(v.abs())));
            judged.largest = judged.largest.max(delta);
            if delta > allowed && judged.apart.is_none() {
                judged.apart = Some(Apart {
                    path: path.clone(),
                    position: at + i,
                    delta,
                    allowed,
                });
            }
        }
        at += n;
    }
    judged
}
