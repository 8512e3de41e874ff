//! The MLP and the mixture of experts, plainly, token by token where
//! tokens part ways.
//!
//! ```text
//! mlp(x)  = act(x·W1 + b1)·W2 + b2            relu, gelu, gelu-tanh, silu
//!         = (act(x·Wg + bg) ⊙ (x·Wu + bu))·W2  swiglu (silu), geglu (gelu-tanh)
//!           [g; u] = x·W_gu when gate and up are one matrix
//! moe(x)  = Σ over the k experts e of x's top k of p_e/Σ p · mlp_e(x),
//!           p = softmax(x·W_r) over the E experts, ties to the lower e
//! ```
//!
//! # Shapes
//! - x, output: (n, d); hidden: (n, ff); router: (n, E)

use super::{Params, PlainError, linear};
use crate::config::{Act, ModelConfig};
use ndarray::{Array2, Axis, s};

/// The block's MLP, or its mixture of experts, on x (B·T, d) in the
/// scope `block` (`blockN`).
pub(super) fn sublayer(
    cfg: &ModelConfig,
    w: &Params,
    block: &str,
    x: &Array2<f64>,
) -> Result<Array2<f64>, PlainError> {
    let Some(mixture) = cfg.mixture else {
        return mlp(cfg, w, &format!("{block}.mlp"), x);
    };
    let p = format!("{block}.moe");
    let logits = linear(w, &format!("{p}.router"), x)?; // (n, E)
    let mut y = Array2::zeros(x.raw_dim()); // (n, d)
    for (i, row) in logits.rows().into_iter().enumerate() {
        let top = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let exps: Vec<f64> = row.iter().map(|l| (l - top).exp()).collect();
        let total: f64 = exps.iter().sum();
        let probs: Vec<f64> = exps.iter().map(|e| e / total).collect();
        // The k most probable experts, best first; equal ones by index.
        let mut order: Vec<usize> = (0..probs.len()).collect();
        order.sort_by(|&a, &b| probs[b].total_cmp(&probs[a]).then(a.cmp(&b)));
        let chosen = &order[..mixture.top_k.min(order.len())];
        let sum: f64 = chosen.iter().map(|&e| probs[e]).sum();
        let token = x.slice(s![i..=i, ..]).to_owned(); // (1, d)
        for &e in chosen {
            let out = mlp(cfg, w, &format!("{p}.expert{}", e + 1), &token)?; // (1, d)
            y.row_mut(i)
                .scaled_add(probs[e] / sum, &out.index_axis(Axis(0), 0));
        }
    }
    Ok(y)
}

/// The MLP in scope `p` (`blockN.mlp`, `blockN.moe.expertE`) on x (n, d).
fn mlp(cfg: &ModelConfig, w: &Params, p: &str, x: &Array2<f64>) -> Result<Array2<f64>, PlainError> {
    let hidden = match cfg.mlp.act {
        Act::Swiglu | Act::Geglu => {
            let (g, u) = if cfg.mlp.fused_gate_up {
                let gu = linear(w, &format!("{p}.gate_up"), x)?; // (n, 2·ff)
                let ff = gu.ncols() / 2;
                let g = gu.slice(s![.., ..ff]).to_owned();
                (g, gu.slice(s![.., ff..]).to_owned())
            } else {
                (
                    linear(w, &format!("{p}.gate"), x)?, // (n, ff)
                    linear(w, &format!("{p}.up"), x)?,   // (n, ff)
                )
            };
            let act = if cfg.mlp.act == Act::Swiglu {
                silu
            } else {
                gelu_tanh
            };
            g.mapv(act) * u // act(g) ⊙ u
        }
        act => linear(w, &format!("{p}.up"), x)?.mapv(match act {
            Act::Relu => |v: f64| v.max(0.0),
            Act::Gelu => gelu,
            Act::GeluTanh => gelu_tanh,
            _ => silu,
        }),
    }; // (n, ff)
    linear(w, &format!("{p}.down"), &hidden) // (n, d)
}

/// ½·x·(1 + erf(x/√2)).
fn gelu(v: f64) -> f64 {
    0.5 * v * (1.0 + libm::erf(v * std::f64::consts::FRAC_1_SQRT_2))
}

/// ½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
fn gelu_tanh(v: f64) -> f64 {
    let u = (2.0 / std::f64::consts::PI).sqrt() * (v + 0.044_715 * v.powi(3));
    0.5 * v * (1.0 + u.tanh())
}

/// x·σ(x).
fn silu(v: f64) -> f64 {
    v / (1.0 + (-v).exp())
}
