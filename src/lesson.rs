//! The lesson's small API (day 47: feedforward networks), in plain f64
//! matrices: the FFN and its gated variant, their parameter counts, the
//! SwiGLU width rule, a position-wise probe, the FFN by hand
//! ([`by_hand`]; its matrices in [`matrix`], the whole lab sheet in
//! [`ffn_lab`]) and LayerNorm against RMSNorm ([`norms`]).
//!
//! ```
//! use shapetrace::lesson::{ffn_params, swiglu_width};
//! assert_eq!(ffn_params(64, 256, false), 32_768); // 2·d·d_ff
//! let w = swiglu_width(256, None);                 // round(2/3 · 256)
//! assert_eq!((w, ffn_params(64, w, true)), (171, 32_832));
//! assert_eq!(ffn_params(64, 256, true), 49_152);   // the common error
//! ```

pub mod by_hand;
mod error;
pub mod ffn_lab;
pub mod matrix;
pub mod norms;

use ndarray::{Array1, Array2};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

pub use error::LessonError;

/// Parses `2,-1` into `[2.0, -1.0]`; every entry must be a finite number.
///
/// # Errors
/// [`LessonError::Empty`], or [`LessonError::NotANumber`] naming the entry.
pub fn parse_vector(input: &str) -> Result<Vec<f64>, LessonError> {
    if input.trim().is_empty() {
        return Err(LessonError::Empty);
    }
    input
        .split(',')
        .map(|s| {
            let s = s.trim();
            s.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| LessonError::NotANumber {
                    got: s.to_string(),
                    input: input.to_string(),
                })
        })
        .collect()
}

/// `max(0, x)`, the original Transformer's activation.
#[must_use]
pub fn relu(x: f64) -> f64 {
    x.max(0.0)
}

/// Exact GELU, `x·Φ(x)`, as GPT-2 and nanoGPT use.
#[must_use]
pub fn gelu(x: f64) -> f64 {
    0.5 * x * (1.0 + libm::erf(x * std::f64::consts::FRAC_1_SQRT_2))
}

/// `x·σ(x)`, the gate of SwiGLU.
#[must_use]
pub fn silu(x: f64) -> f64 {
    x / (1.0 + (-x).exp())
}

fn matmul(what: &str, a: &Array2<f64>, b: &Array2<f64>) -> Result<Array2<f64>, LessonError> {
    if a.ncols() == b.nrows() {
        Ok(a.dot(b))
    } else {
        Err(LessonError::Shape(format!(
            "{what}: ({},{})·({},{}) needs equal inner sizes",
            a.nrows(),
            a.ncols(),
            b.nrows(),
            b.ncols()
        )))
    }
}

fn add_bias(what: &str, mut a: Array2<f64>, b: &Array1<f64>) -> Result<Array2<f64>, LessonError> {
    if a.ncols() != b.len() {
        return Err(LessonError::Shape(format!(
            "{what}: bias ({}) does not match width {}",
            b.len(),
            a.ncols()
        )));
    }
    a += b;
    Ok(a)
}

/// `FFN(x) = act(x·W1 + b1)·W2 + b2`, applied to every row of x.
///
/// # Shapes
/// x: (T, d); W1: (d, f); b1: (f); W2: (f, d); b2: (d) → (T, d)
///
/// ```
/// use ndarray::{array, Array1};
/// use shapetrace::lesson::{ffn, relu};
/// let (w1, w2) = (array![[1., 0., -1.], [0., 2., 1.]], array![[1., 0.], [0., 1.], [-1., 1.]]);
/// let y = ffn(&array![[1., 2.], [2., -1.]], &w1, &Array1::zeros(3), &w2, &Array1::zeros(2), relu).unwrap();
/// assert_eq!(y, array![[0., 5.], [2., 0.]]);
/// ```
///
/// # Errors
/// [`LessonError::Shape`] when the sizes do not chain.
pub fn ffn(
    x: &Array2<f64>,
    w1: &Array2<f64>,
    b1: &Array1<f64>,
    w2: &Array2<f64>,
    b2: &Array1<f64>,
    act: impl Fn(f64) -> f64,
) -> Result<Array2<f64>, LessonError> {
    let h = add_bias("x·W1 + b1", matmul("x·W1", x, w1)?, b1)?.mapv(act); // (T, f)
    add_bias("h·W2 + b2", matmul("h·W2", &h, w2)?, b2) // (T, d)
}

/// SwiGLU, bias-free as in LLaMA: `(silu(x·Wg) ⊙ x·Wu)·Wd`.
///
/// # Shapes
/// x: (T, d); Wg, Wu: (d, f); Wd: (f, d) → (T, d)
///
/// ```
/// use ndarray::array;
/// use shapetrace::lesson::gated_ffn;
/// let id = array![[1., 0.], [0., 1.]];
/// let y = gated_ffn(&array![[0., 0.]], &id, &id, &id).unwrap();
/// assert_eq!(y, array![[0., 0.]]); // silu(0) = 0 closes the gate
/// ```
///
/// # Errors
/// [`LessonError::Shape`] when the sizes do not chain.
pub fn gated_ffn(
    x: &Array2<f64>,
    wg: &Array2<f64>,
    wu: &Array2<f64>,
    wd: &Array2<f64>,
) -> Result<Array2<f64>, LessonError> {
    let g = matmul("x·Wg", x, wg)?.mapv(silu); // (T, f)
    let u = matmul("x·Wu", x, wu)?; // (T, f)
    if g.dim() != u.dim() {
        return Err(LessonError::Shape("Wg and Wu differ in shape".into()));
    }
    matmul("(g⊙u)·Wd", &(g * u), wd) // (T, d)
}

/// Weights of an FFN: `2·d·f`, or `3·d·f` gated (SwiGLU's gate, up, down).
#[must_use]
pub fn ffn_params(d: usize, f: usize, gated: bool) -> usize {
    (if gated { 3 } else { 2 }) * d * f
}

/// Biases of an FFN: `f + d`, or `2·f + d` gated.
///
/// ```
/// assert_eq!(shapetrace::lesson::ffn_biases(64, 256, false), 320); // 33,088 in all
/// ```
#[must_use]
pub fn ffn_biases(d: usize, f: usize, gated: bool) -> usize {
    (if gated { 2 } else { 1 }) * f + d
}

/// The SwiGLU width with the parameters of a d_ff-wide FFN:
/// `round(2/3 · d_ff)`, then rounded up to a multiple if one is given.
///
/// ```
/// use shapetrace::lesson::swiglu_width;
/// assert_eq!(swiglu_width(256, None), 171);
/// assert_eq!(swiglu_width(256, Some(64)), 192);
/// assert_eq!(swiglu_width(4 * 4096, Some(256)), 11008); // LLaMA-7B
/// ```
#[must_use]
pub fn swiglu_width(d_ff: usize, multiple: Option<usize>) -> usize {
    let w = (2 * d_ff + 1) / 3; // round(2·d_ff / 3); a remainder of 2 rounds up
    match multiple {
        Some(m) if m > 1 => w.div_ceil(m) * m,
        _ => w,
    }
}

/// Which output rows of `f` change when only row `t` of `x` changes (by
/// N(0, 1) noise drawn from `seed`).
#[must_use]
pub fn changed_rows(
    f: impl Fn(&Array2<f64>) -> Array2<f64>,
    x: &Array2<f64>,
    t: usize,
    seed: u64,
) -> Vec<bool> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut moved = x.clone();
    for v in moved.row_mut(t) {
        let z: f64 = StandardNormal.sample(&mut rng);
        *v += z;
    }
    let (a, b) = (f(x), f(&moved));
    a.rows()
        .into_iter()
        .zip(b.rows())
        .map(|(r, s)| {
            r.iter()
                .zip(s)
                .any(|(p, q)| (p - q).abs() > 1e-12 * (1.0 + p.abs()))
        })
        .collect()
}

/// Whether `f` acts on each row of x alone: in `trials` tries, changing one
/// random row of x changes no other row of the output.
///
/// ```
/// use ndarray::{Array2, Axis};
/// use shapetrace::lesson::is_positionwise;
/// let x = Array2::from_shape_fn((4, 3), |(i, j)| (i + 2 * j) as f64);
/// assert!(is_positionwise(|x: &Array2<f64>| x.mapv(f64::tanh), &x, 8, 0));
/// // The mean over the sequence mixes tokens: not position-wise.
/// let mix = |x: &Array2<f64>| x - &x.mean_axis(Axis(0)).unwrap();
/// assert!(!is_positionwise(mix, &x, 8, 0));
/// ```
#[must_use]
pub fn is_positionwise(
    f: impl Fn(&Array2<f64>) -> Array2<f64>,
    x: &Array2<f64>,
    trials: usize,
    seed: u64,
) -> bool {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..trials).all(|_| {
        let t = rng.random_range(0..x.nrows().max(1));
        let trial_seed = rng.random::<u64>();
        changed_rows(&f, x, t, trial_seed)
            .iter()
            .enumerate()
            .all(|(i, changed)| i == t || !changed)
    })
}

/// A number as the lesson writes it: `1`, `-2`, `0.8485`; huge ones in
/// exponent form, `1e308`, never rounded to `inf`.
///
/// ```
/// use shapetrace::lesson::fmt_num;
/// assert_eq!((fmt_num(-2.0), fmt_num(0.84853), fmt_num(1e308)), ("-2".into(), "0.8485".into(), "1e308".into()));
/// ```
#[must_use]
pub fn fmt_num(v: f64) -> String {
    if !v.is_finite() || v.abs() >= 1e12 {
        return format!("{v:e}");
    }
    let r = (v * 1e4).round() / 1e4;
    let r = if r == 0.0 { 0.0 } else { r }; // no "-0"
    let s = format!("{r:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `[1, 4, 1]`.
#[must_use]
pub fn fmt_vec(v: &[f64]) -> String {
    let parts: Vec<String> = v.iter().map(|x| fmt_num(*x)).collect();
    format!("[{}]", parts.join(", "))
}

/// A factor in a product: negatives in parentheses, `(-1)`.
#[must_use]
pub fn fmt_factor(v: f64) -> String {
    let s = fmt_num(v);
    if s.starts_with('-') {
        format!("({s})")
    } else {
        s
    }
}
