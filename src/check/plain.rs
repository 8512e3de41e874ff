//! A plain forward of the blocks in f64, written apart from the fast
//! backend: loops over tokens and heads on plain ndarray arrays, no fused
//! passes, no tiles, no work in place, no SIMD. `reference` holds the
//! traced run against it.
//!
//! It reads the config (what the model declares) and the weights the
//! traced model ran with, by name, widened to f64, and computes from the
//! same x0:
//!
//! ```text
//! pre:       x = x + attn(LN1(x));            x = x + mlp(LN2(x))
//! post:      x = LN1(x + attn(x));            x = LN2(x + mlp(x))
//! sandwich:  x = x + LN1'(attn(LN1(x)));      x = x + LN2'(mlp(LN2(x)))
//! parallel:  x = x + attn(LN1(x)) + mlp(LN2(x))    (LN1 for both when shared)
//! out      = LN_f(x)                          when the model has a final norm
//! ```
//!
//! The MLP may be a mixture of experts (each token through its router's
//! top k, their outputs weighted). Only the declared architecture: a
//! teaching fault is a variant of the model, which `reference` compares
//! with its declared self instead.
//!
//! # Shapes
//! - x0, every block's output, LN_f's: (B, T, d), held as (B·T, d) rows
//! - weights: a linear's (in, out), a norm's γ and β (d)

mod attention;
mod mlp;

use crate::config::{DType, Fault, ModelConfig, NormKind, Placement};
use ndarray::{Array2, ArrayD, ArrayView1, ArrayView2, Axis, Ix1, Ix2};
use std::collections::HashMap;

/// The weights by name, e.g. `block1.attn.q_proj.weight` (d, h·hd).
pub type Params = HashMap<String, ArrayD<f64>>;

/// What the plain forward gives: the stream after each block, and the
/// final norm's output.
#[derive(Debug, Clone)]
pub struct Outputs {
    /// Block n's output at index n − 1, each (B·T, d).
    pub blocks: Vec<Array2<f64>>,
    /// `LN_f(x)`, (B·T, d); `None` without a final norm.
    pub ln_f: Option<Array2<f64>>,
}

/// Why the plain forward gives no outputs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlainError {
    /// A teaching fault: a variant of the model, which `reference`
    /// compares with the declared architecture instead.
    #[error("the plain forward does not cover the fault {0}")]
    Fault(Fault),
    /// A weight the declared architecture needs is not among the params,
    /// or has another rank.
    #[error("the plain forward found no weight {0} of the rank it needs")]
    Missing(String),
    /// x0 is not (B, T, d).
    #[error("x0 is not the stream's shape (B, T, d)")]
    Input,
}

/// Whether the plain forward computes `cfg`'s model: every architecture
/// a valid config declares (a mixture of experts in 16 bits is not one:
/// validation refuses it), but not a teaching fault, a variant of it.
///
/// # Errors
/// [`PlainError::Fault`].
pub fn covers(cfg: &ModelConfig) -> Result<(), PlainError> {
    match cfg.fault {
        Some(f) => Err(PlainError::Fault(f)),
        None => Ok(()),
    }
}

/// The blocks of `cfg` and its final norm on x0 (B, T, d), with `w`.
///
/// # Errors
/// [`PlainError`]: a model it does not cover, a weight it cannot find, or
/// an x0 of another shape.
pub fn forward(cfg: &ModelConfig, w: &Params, x0: &ArrayD<f64>) -> Result<Outputs, PlainError> {
    covers(cfg)?;
    let (b, t, d) = (cfg.batch, cfg.seq, cfg.d_model);
    if x0.shape() != [b, t, d] {
        return Err(PlainError::Input);
    }
    let mut x = x0
        .to_shape((b * t, d))
        .map_err(|_| PlainError::Input)?
        .to_owned(); // (B·T, d)
    let mut blocks = Vec::with_capacity(cfg.layers);
    for n in 1..=cfg.layers {
        x = block(cfg, w, n, &x)?; // (B·T, d)
        blocks.push(x.clone());
    }
    let ln_f = if cfg.norms.final_norm {
        Some(norm(cfg, w, "ln_f", &x)?)
    } else {
        None
    };
    Ok(Outputs { blocks, ln_f })
}

/// Block `n` (from 1) on x (B·T, d), as the config places its norms.
fn block(
    cfg: &ModelConfig,
    w: &Params,
    n: usize,
    x: &Array2<f64>,
) -> Result<Array2<f64>, PlainError> {
    let p = format!("block{n}");
    let attn = |h: &Array2<f64>| attention::attention(cfg, w, n, h);
    let mlp = |h: &Array2<f64>| mlp::sublayer(cfg, w, &p, h);
    if cfg.parallel {
        let h1 = norm(cfg, w, &format!("{p}.ln_1"), x)?; // LN1(x)
        let h2 = if cfg.norms.shared {
            h1.clone()
        } else {
            norm(cfg, w, &format!("{p}.ln_2"), x)? // LN2(x)
        };
        return Ok(x + &attn(&h1)? + &mlp(&h2)?); // x + attn(LN1(x)) + mlp(LN2(x))
    }
    let mut x = x.clone();
    for (i, f) in [
        &attn as &dyn Fn(&Array2<f64>) -> Result<Array2<f64>, PlainError>,
        &mlp,
    ]
    .into_iter()
    .enumerate()
    {
        let ln = format!("{p}.ln_{}", i + 1);
        x = match cfg.norms.placement {
            Placement::Pre => &x + &f(&norm(cfg, w, &ln, &x)?)?, // x + f(LN(x))
            Placement::Post => norm(cfg, w, &ln, &(&x + &f(&x)?))?, // LN(x + f(x))
            Placement::Sandwich => {
                let u = f(&norm(cfg, w, &ln, &x)?)?; // f(LN(x))
                let post = format!("{p}.post_ln_{}", i + 1);
                &x + &norm(cfg, w, &post, &u)? // x + LN'(f(LN(x)))
            }
        };
    }
    Ok(x)
}

/// The norm `name` on each row of x (n, d): LayerNorm
/// `(x − mean)/√(var + ε)·γ + β`, RMSNorm `x/√(mean(x²) + ε)·γ`, or
/// Gemma's, which scales by `1 + w`.
fn norm(
    cfg: &ModelConfig,
    w: &Params,
    name: &str,
    x: &Array2<f64>,
) -> Result<Array2<f64>, PlainError> {
    let g = vector(w, &format!("{name}.weight"))?; // (d)
    let beta = vector(w, &format!("{name}.bias")).ok(); // (d)
    let gamma = match cfg.norms.kind {
        NormKind::RmsNormPlusOne => g.mapv(|v| 1.0 + v),
        _ => g.to_owned(),
    };
    let mut y = x.clone();
    for mut row in y.rows_mut() {
        #[allow(clippy::cast_precision_loss)]
        let d = row.len() as f64;
        let (centre, square) = match cfg.norms.kind {
            NormKind::LayerNorm => {
                let mean = row.sum() / d;
                (
                    mean,
                    row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / d,
                )
            }
            _ => (0.0, row.iter().map(|v| v * v).sum::<f64>() / d),
        };
        let inv = 1.0 / (square + cfg.norms.eps).sqrt();
        for (j, v) in row.iter_mut().enumerate() {
            *v = (*v - centre) * inv * gamma[j] + beta.as_ref().map_or(0.0, |b| b[j]);
        }
    }
    Ok(y)
}

/// `x·W + b` of the linear `name` (its `weight` (in, out), its `bias`
/// (out) if it has one) on x (n, in): (n, out).
fn linear(w: &Params, name: &str, x: &Array2<f64>) -> Result<Array2<f64>, PlainError> {
    let m = matrix(w, &format!("{name}.weight"))?; // (in, out)
    let mut y = x.dot(&m); // (n, out)
    if let Ok(b) = vector(w, &format!("{name}.bias")) {
        y += &b;
    }
    Ok(y)
}

/// The weight `name` as a matrix, where it lies.
fn matrix<'w>(w: &'w Params, name: &str) -> Result<ArrayView2<'w, f64>, PlainError> {
    w.get(name)
        .and_then(|a| a.view().into_dimensionality::<Ix2>().ok())
        .ok_or_else(|| PlainError::Missing(name.to_string()))
}

/// The weight `name` as a vector, where it lies.
fn vector<'w>(w: &'w Params, name: &str) -> Result<ArrayView1<'w, f64>, PlainError> {
    w.get(name)
        .and_then(|a| a.view().into_dimensionality::<Ix1>().ok())
        .ok_or_else(|| PlainError::Missing(name.to_string()))
}

/// The unit roundoff of a model dtype's significand, ε: 2⁻⁵² (f64),
/// 2⁻²³ (f32), 2⁻¹⁰ (f16), 2⁻⁷ (bf16); the spacing of its values just
/// above 1.
#[must_use]
pub fn epsilon(dtype: DType) -> f64 {
    match dtype {
        DType::F64 | DType::I64 => f64::EPSILON,
        DType::F32 => f64::from(f32::EPSILON),
        DType::F16 => half::f16::EPSILON.to_f64(),
        DType::BF16 => half::bf16::EPSILON.to_f64(),
    }
}

/// The rows of x (B·T, d) of batch element `b`, as (T, d).
fn sequence(x: &Array2<f64>, b: usize, t: usize) -> ndarray::ArrayView2<'_, f64> {
    x.slice_axis(Axis(0), ndarray::Slice::from(b * t..(b + 1) * t))
}
