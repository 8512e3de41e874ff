//! The loss a training step minimises, and its gradient dL/dz on the
//! model's last step z.
//!
//! - With a vocabulary: the next-token cross-entropy. The logits z (B, T,
//!   V) at position t score token t + 1: `L = mean over B·(T−1) of
//!   logsumexp(z[b,t]) − z[b,t,ids[b,t+1]]`, and `dL/dz[b,t] =
//!   (softmax(z[b,t]) − onehot(ids[b,t+1])) / (B·(T−1))`, 0 at the last
//!   position, which has no next token.
//! - Without one: `L = mean(y²)` over every value of the output y, a
//!   stand-in that reaches every parameter, and `dL/dy = 2y / n`.

use crate::ops::fmt_shape;
use crate::trace::recorder::tape::Step;
use crate::why::Why;
use ndarray::{ArrayD, Axis};

/// The loss on `last` (its values, shape-only `None`), dL/d`last`, the
/// loss's why and its formula. `lm`: `last` is the logits, `ids` the token
/// ids (B, T) they are scored against.
#[must_use]
pub fn of(
    last: &Step,
    lm: bool,
    ids: Option<&ArrayD<f64>>,
) -> (Option<f64>, Option<ArrayD<f64>>, Why, String) {
    let shape = fmt_shape(&last.shape);
    if lm {
        let (b, t) = (last.shape[0], last.shape[1]);
        let n = b * t.saturating_sub(1);
        let formula = format!(
            "L = mean −log softmax({})[b, t, ids[b, t+1]] : {shape} → () over B·(T−1) = {n}",
            last.path
        );
        let why = Why::new("why-loss-next-token")
            .arg("path", last.path.as_str())
            .arg("shape", shape)
            .arg("n", n);
        let (loss, dz) = match (&last.out, ids) {
            (Some(z), Some(ids)) => {
                let (l, dz) = cross_entropy(z, ids);
                (Some(l), Some(dz))
            }
            _ => (None, None),
        };
        return (loss, dz, why, formula);
    }
    let n: usize = last.shape.iter().product();
    let formula = format!("L = mean({}²) : {shape} → () over {n} values", last.path);
    let why = Why::new("why-loss-mean-square")
        .arg("path", last.path.as_str())
        .arg("shape", shape)
        .arg("n", n);
    #[allow(clippy::cast_precision_loss)]
    let count = n.max(1) as f64;
    let loss = last
        .out
        .as_ref()
        .map(|y| y.iter().map(|v| v * v).sum::<f64>() / count);
    let dz = last.out.as_ref().map(|y| y * (2.0 / count));
    (loss, dz, why, formula)
}

/// The next-token cross-entropy of logits z (B, T, V) against ids (B, T),
/// and dL/dz.
fn cross_entropy(z: &ArrayD<f64>, ids: &ArrayD<f64>) -> (f64, ArrayD<f64>) {
    let (b, t) = (z.shape()[0], z.shape()[1]);
    #[allow(clippy::cast_precision_loss)]
    let n = (b * t.saturating_sub(1)).max(1) as f64;
    let mut dz = ArrayD::zeros(z.shape());
    let mut loss = 0.0;
    for bi in 0..b {
        for ti in 0..t.saturating_sub(1) {
            let row = z.index_axis(Axis(0), bi);
            let row = row.index_axis(Axis(0), ti);
            // Ids are whole numbers in 0..V, exact in f64.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let target = ids[[bi, ti + 1]] as usize;
            let max = row.fold(f64::NEG_INFINITY, |m, &v| m.max(v));
            let sum: f64 = row.iter().map(|v| (v - max).exp()).sum();
            let lse = max + sum.ln();
            loss += lse - row[target];
            let mut d = dz.index_axis_mut(Axis(0), bi);
            let mut d = d.index_axis_mut(Axis(0), ti);
            for (v, g) in row.iter().zip(d.iter_mut()) {
                *g = (v - lse).exp() / n;
            }
            d[target] -= 1.0 / n;
        }
    }
    (loss / n, dz)
}
