//! The checks of a model split across devices, and the `shard` check.
//!
//! The shown device's trace is judged as any run's: every op, residual
//! add and stream tensor (this device's (B, T/N, d) under sequence
//! parallelism), the returns, the wiring, finiteness, and `params`
//! against one device's closed form. `shard` then runs every device (each
//! a thread, the communication done in memory) and the one-device model
//! on the same weights and input, and compares each device's residual
//! adds, norms, embeddings and outputs with the one-device model's (its
//! slice of the positions under sequence parallelism). The first that
//! differs, in the order the model ran, is where the split broke: every
//! step before it agrees.
//!
//! The probes and `reference` judge what the devices compute: the
//! one-device model, which `shard` holds them to.

use super::influence::Subject;
use super::{CheckName, CheckResult, contract, params, probe, reference};
use crate::config::{DType, Devices, ModelConfig};
use crate::model::devices::record_all;
use crate::model::record;
use crate::ops::numeric::{Numeric, Scalar, Tensor};
use crate::trace::recorder::{Capture, Watch};
use crate::trace::{Role, Trace};
use crate::why::Why;

/// The largest |Δ| allowed, times the larger of 1 and the one-device
/// tensor's largest |value|: the devices sum in another order.
pub const TOL: f64 = 1e-5;

/// Every check of a split model's trace.
#[must_use]
pub fn all(trace: &Trace, subject: Subject) -> Vec<CheckResult> {
    let one = one_device(subject.cfg);
    let single = Subject {
        cfg: &one,
        ..subject
    };
    let mut out = contract::all(trace);
    out.push(params::params(trace));
    // The probes move tokens through the one-device model themselves.
    out.extend(probe::all(trace, subject));
    out.push(reference::reference(trace, single));
    out.push(shard(trace, subject));
    out
}

/// `cfg` on one device: a fault of the split's goes with it, the one
/// device having nothing to split.
#[must_use]
pub fn one_device(cfg: &ModelConfig) -> ModelConfig {
    use crate::config::fault::Need;
    let of_split = cfg.fault.is_some_and(|f| {
        let needs = f.spec().needs;
        [Need::Tp, Need::Sp, Need::Pp, Need::Ep]
            .iter()
            .any(|n| needs.contains(n))
    });
    ModelConfig {
        devices: Devices::default(),
        fault: if of_split { None } else { cfg.fault },
        ..cfg.clone()
    }
}

/// Every device against the one-device model.
#[must_use]
pub fn shard(trace: &Trace, subject: Subject) -> CheckResult {
    if let Some(skip) = super::cannot_rerun(CheckName::Shard, trace, subject.cfg) {
        return skip;
    }
    // A 16-bit model is judged in f32: rounding each device's partial sum
    // to 8 bits would hide a missing one within its own tolerance.
    let half = subject.cfg.dtype.is_half();
    let in_f32 = ModelConfig {
        dtype: DType::F32,
        ..subject.cfg.clone()
    };
    let (devices, one) = match subject.cfg.dtype {
        DType::F64 => runs::<f64>(subject),
        _ if half => runs::<f32>(Subject {
            cfg: &in_f32,
            ..subject
        }),
        _ => runs::<f32>(subject),
    };
    let mut verdict = judge(&devices, &one, subject.cfg.devices, TOL);
    if half && let Some(why) = &mut verdict.why {
        let said = why.clone().arg("half", subject.cfg.dtype.to_string());
        verdict = verdict.said(said);
    }
    verdict
}

/// Every device's captures, in device order, and the one-device model's.
fn runs<F: Scalar>(subject: Subject) -> (Vec<Vec<Capture>>, Vec<Capture>) {
    let watch = Watch {
        capture: true,
        ..Watch::default()
    };
    let backend = Numeric::<F>::new();
    let x0 = subject
        .input
        .map(|x| Tensor::from(x.mapv(|v| F::of(f64::from(v)))));
    let inputs = || (x0.clone(), subject.tokens);
    let devices = record_all(
        subject.cfg,
        &backend,
        subject.source,
        inputs(),
        &watch,
        true,
    );
    let one = one_device(subject.cfg);
    let single = record(&one, &backend, subject.source, inputs(), &watch);
    (
        devices.into_iter().map(|r| r.captures).collect(),
        single.captures,
    )
}

/// Whether a tensor is compared: what lies on the stream or leaves the
/// model, which every device holds whole (or its positions, split).
fn compared(role: Role) -> bool {
    matches!(
        role,
        Role::Input
            | Role::Embedding
            | Role::Norm
            | Role::ResidualAdd
            | Role::Logits
            | Role::Pooled
    )
}

/// The verdict on `devices`' captures against the one-device model's
/// `one`: the first compared tensor, in the order the model ran, that
/// differs by more than `tol` on some device.
fn judge(devices: &[Vec<Capture>], one: &[Capture], split: Devices, tol: f64) -> CheckResult {
    let name = CheckName::Shard;
    let (mut n, mut largest) = (0usize, 0.0f64);
    let mut agreed: Option<&str> = None;
    for want in one.iter().filter(|c| compared(c.role)) {
        for (device, caps) in devices.iter().enumerate() {
            let Some(got) = caps.iter().find(|c| c.path == want.path) else {
                continue;
            };
            let rank = device % split.group();
            let Some(expected) = part_of(want, &got.shape, split, rank) else {
                continue;
            };
            let scale = expected.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            let delta = got
                .values
                .iter()
                .zip(&expected)
                .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            if delta.is_nan() || delta > tol * scale {
                return CheckResult::fail(name, &want.path, "").said(
                    Why::new("check-shard-fail")
                        .arg("path", want.path.as_str())
                        .arg("device", device)
                        .arg("delta", format!("{:.1e}", delta / scale))
                        .arg("tol", format!("{tol:.0e}"))
                        .arg("before", agreed.unwrap_or("none"))
                        .arg("half", "none"),
                );
            }
            n += 1;
            largest = largest.max(delta / scale);
        }
        agreed = Some(&want.path);
    }
    if n == 0 {
        return CheckResult::skip(name, "").said(Why::new("check-shard-none"));
    }
    CheckResult::pass(name, "").said(
        Why::new("check-shard-pass")
            .arg("n", n)
            .arg("devices", split.count())
            .arg("delta", format!("{largest:.1e}"))
            .arg("tol", format!("{tol:.0e}"))
            .arg("half", "none"),
    )
}

/// The values of the one-device tensor `want` that device `rank` holds
/// in `shape`: all of them, or its slice of the positions (axis 1) under
/// sequence parallelism, or of the sequences (axis 0) under expert
/// parallelism; `None` when none fits.
fn part_of(want: &Capture, shape: &[usize], split: Devices, rank: usize) -> Option<Vec<f64>> {
    if shape == want.shape.as_slice() {
        return Some(want.values.clone());
    }
    let (axis, n) = if split.experts_split() {
        (0, split.ep)
    } else if split.sp {
        (1, split.tp)
    } else {
        return None;
    };
    let fits = shape.len() == want.shape.len()
        && shape.len() > axis
        && (0..shape.len()).all(|i| {
            if i == axis {
                shape[i] * n == want.shape[i]
            } else {
                shape[i] == want.shape[i]
            }
        });
    if !fits {
        return None;
    }
    let a = ndarray::ArrayViewD::from_shape(want.shape.as_slice(), &want.values).ok()?;
    let t = shape[axis];
    let cut = ndarray::Slice::from(rank * t..(rank + 1) * t);
    Some(
        a.slice_axis(ndarray::Axis(axis), cut)
            .iter()
            .copied()
            .collect(),
    )
}
