//! Behavioural probes: re-run the model on a perturbed input and see which
//! output rows change.
//!
//! - `positionwise`: each norm and MLP, run alone on a random (B,T,d)
//!   input, changes only token s when only token s of its input changes.
//! - `causality`: changing token t of batch element 0 of x0 changes no
//!   output at a position < t, and nothing in another batch element.

use super::CheckResult;
use crate::config::{DType, ModelConfig};
use crate::model::{self, Model, block::Block, seed_for};
use crate::ops::Backend;
use crate::ops::numeric::{Numeric, Scalar};
use crate::trace::recorder::{Capture, Recorder, Stop, Val};
use crate::trace::{CheckName, Mode, Trace};
use ndarray::{ArrayD, s};

/// Largest model the probes re-run, in bytes of a numeric run.
pub const PROBE_MAX_BYTES: u128 = 256 << 20;

/// Both probes on the model of `trace`.
#[must_use]
pub fn all(trace: &Trace) -> Vec<CheckResult> {
    let cfg = &trace.config;
    let names = [CheckName::Positionwise, CheckName::Causality];
    let why = if trace.mode == Mode::ShapeOnly {
        Some("shape-only run: no values to compare".to_string())
    } else if cfg.numeric_bytes() > PROBE_MAX_BYTES {
        Some(format!(
            "model too large to re-run (limit {})",
            crate::config::human_bytes(PROBE_MAX_BYTES)
        ))
    } else {
        None
    };
    if let Some(why) = why {
        return names
            .iter()
            .map(|n| CheckResult::skip(*n, why.clone()))
            .collect();
    }
    match cfg.dtype {
        DType::F32 => vec![positionwise::<f32>(cfg), causality::<f32>(trace)],
        DType::F64 => vec![positionwise::<f64>(cfg), causality::<f64>(trace)],
    }
}

/// Token positions to perturb: all of them for short sequences.
fn positions(t: usize) -> Vec<usize> {
    if t <= 16 {
        (0..t).collect()
    } else {
        vec![0, 1, t / 2, t - 1]
    }
}

/// x with token `t` of batch element 0 moved by N(0, 1) noise.
fn perturb<F: Scalar>(cfg: &ModelConfig, x: &ArrayD<F>, t: usize) -> ArrayD<F> {
    let backend = Numeric::<F>::new();
    let noise = backend.normal(
        &[cfg.d_model],
        seed_for(cfg.seed, &format!("probe.token{t}")),
    );
    let mut y = x.clone();
    let mut row = y.slice_mut(s![0, t, ..]);
    row += &noise;
    y
}

/// The largest change per (batch, token) row between two captures of one
/// tensor, for rows that changed.
fn changed_rows(a: &Capture, b: &Capture) -> Vec<(usize, usize, f64)> {
    let t_axis = a.axes.iter().position(|x| x == "T").unwrap_or(1);
    let stride = |axis: usize| a.shape[axis + 1..].iter().product::<usize>();
    let (sb, st) = (stride(0), stride(t_axis));
    let (nb, nt) = (a.shape[0], a.shape[t_axis]);
    let mut worst = vec![0.0_f64; nb * nt];
    for (i, (x, y)) in a.values.iter().zip(&b.values).enumerate() {
        let d = (x - y).abs();
        let r = (i / sb) % nb * nt + (i / st) % nt;
        if d > 1e-6 * (1.0 + x.abs()) || d.is_nan() {
            worst[r] = worst[r].max(if d.is_nan() { f64::INFINITY } else { d });
        }
    }
    worst
        .iter()
        .enumerate()
        .filter(|(_, d)| **d > 0.0)
        .map(|(r, d)| (r / nt, r % nt, *d))
        .collect()
}

/// One norm or the MLP of a block, run alone.
#[derive(Clone, Copy)]
enum Part {
    Ln1,
    Mlp,
    Ln2,
}

fn run_part<F: Scalar>(
    block: &Block<ArrayD<F>>,
    part: Part,
    p: &str,
    cfg: &ModelConfig,
    x: &ArrayD<F>,
) -> Result<Vec<Capture>, String> {
    let backend = Numeric::<F>::new();
    let mut rec = Recorder::new(&backend, cfg.stream_shape(), false, true);
    let xv = Val {
        path: "x".into(),
        t: x.clone(),
        axes: ["B", "T", "d"].map(String::from).to_vec(),
    };
    let r: Result<_, Stop> = match part {
        Part::Ln1 => block.ln_1.forward(&mut rec, &format!("{p}.ln_1"), &xv),
        Part::Mlp => block.mlp.forward(&mut rec, &format!("{p}.mlp"), &xv),
        Part::Ln2 => block.ln_2.forward(&mut rec, &format!("{p}.ln_2"), &xv),
    };
    let done = rec.finish();
    match (r, done.failure) {
        (Ok(_), _) => Ok(done.captures),
        (Err(_), Some(f)) => Err(format!("{}: {}", f.path, f.detail)),
        (Err(_), None) => Err(format!("{p} stopped")),
    }
}

fn positionwise<F: Scalar>(cfg: &ModelConfig) -> CheckResult {
    let name = CheckName::Positionwise;
    let backend = Numeric::<F>::new();
    let model = Model::build(cfg, &backend);
    let x = backend.normal(
        &cfg.stream_shape(),
        seed_for(cfg.seed, "probe.positionwise"),
    );
    let ts = positions(cfg.seq);
    for (i, block) in model.blocks.iter().enumerate() {
        let p = format!("block{}", i + 1);
        for part in [Part::Ln1, Part::Mlp, Part::Ln2] {
            let base = match run_part(block, part, &p, cfg, &x) {
                Ok(c) => c,
                Err(e) => return CheckResult::skip(name, format!("cannot run alone: {e}")),
            };
            for &t in &ts {
                let Ok(moved) = run_part(block, part, &p, cfg, &perturb(cfg, &x, t)) else {
                    continue;
                };
                for (a, b) in base.iter().zip(&moved) {
                    if let Some((bb, tt, d)) = changed_rows(a, b)
                        .into_iter()
                        .find(|&(bb, tt, _)| (bb, tt) != (0, t))
                    {
                        return CheckResult::fail(
                            name,
                            &a.path,
                            format!(
                                "{}: changing token {t} of batch 0 changed token {tt} of batch {bb} (|Δ| up to {d:.2e})",
                                a.path
                            ),
                        );
                    }
                }
            }
        }
    }
    CheckResult::pass(
        name,
        format!(
            "every norm and MLP of {} blocks changed only the token that changed ({} tokens tried)",
            model.blocks.len(),
            ts.len()
        ),
    )
}

fn causality<F: Scalar>(trace: &Trace) -> CheckResult {
    let name = CheckName::Causality;
    if let Some(f) = &trace.failure {
        return CheckResult::skip(name, format!("the forward stops at {}", f.path));
    }
    let cfg = &trace.config;
    let x0 = model::input(cfg, &Numeric::<F>::new());
    let (_, base) = crate::captured::<F>(cfg, x0.clone());
    let ts = positions(cfg.seq);
    for &t in &ts {
        let (moved_trace, moved) = crate::captured::<F>(cfg, perturb(cfg, &x0, t));
        if let Some(f) = moved_trace.failure {
            return CheckResult::skip(name, format!("the perturbed run stops at {}", f.path));
        }
        // Scores are compared after the mask, as weights.
        let compared = base
            .iter()
            .zip(&moved)
            .filter(|(a, _)| trace.get(&a.path).is_none_or(|e| e.op != "scores"));
        for (a, b) in compared {
            let leak = changed_rows(a, b)
                .into_iter()
                .find(|&(bb, tt, _)| bb != 0 || tt < t);
            if let Some((bb, tt, d)) = leak {
                let whom = if bb == 0 {
                    format!("earlier position {tt}")
                } else {
                    format!("batch element {bb}")
                };
                return CheckResult::fail(
                    name,
                    &a.path,
                    format!(
                        "{}: changing token {t} of batch 0 changed {whom} (|Δ| up to {d:.2e})",
                        a.path
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
