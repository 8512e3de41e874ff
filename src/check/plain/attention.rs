//! Attention, plainly: per batch element and query head, each query's
//! scores over the keys it may read, their softmax, the weighted sum of
//! the values; the heads side by side, then the output projection.
//!
//! ```text
//! q_t = x_t·Wq (+ b), k_j, v_j likewise (one fused matrix split by columns)
//! q_t, k_j rotated by t·ω_i, j·ω_i on pairs (i, i + r/2), i < r/2  (rotary)
//! s_tj = q_t·k_j/√scale  (+ m_h·(j − t), ALiBi)  (c·tanh(s/c), soft cap)
//! a_tj = e^(s_tj − max) / Σ over the keys j that t reads
//! y_t  = [Σ_j a_tj·v_j for each head]·Wo (+ b)
//! ```
//!
//! Query head i reads key and value head i / (h/kv). Query t reads key j
//! ≤ t in a decoder (within t − w < j with a sliding window w), every j in
//! an encoder.
//!
//! # Shapes
//! - x, y: (B·T, d); q: (B·T, h·hd); k, v: (B·T, kv·hd)
//! - per head: q_h (T, hd), scores (T, T), context (T, hd)

use super::{Params, PlainError, linear, sequence};
use crate::config::{ModelConfig, PosEmb, QkvFusion, RopeScaling};
use ndarray::{Array2, s};

/// The attention sublayer of block `n` on x (B·T, d): (B·T, d).
pub(super) fn attention(
    cfg: &ModelConfig,
    w: &Params,
    n: usize,
    x: &Array2<f64>,
) -> Result<Array2<f64>, PlainError> {
    let p = format!("block{n}.attn");
    let (h, kv, hd) = (cfg.attention.heads, cfg.attention.kv_heads, cfg.head_dim());
    let (mut q, mut k, v) = projections(cfg, w, &p, x)?; // (B·T, h·hd), (B·T, kv·hd) ×2
    if cfg.positions.kind == PosEmb::Rope {
        rotate(cfg, &mut q, h, hd);
        rotate(cfg, &mut k, kv, hd);
    }
    let slopes = alibi_slopes(h);
    let window = cfg.window_at(n);
    #[allow(clippy::cast_precision_loss)]
    let scale = 1.0 / (cfg.score_scale() as f64).sqrt();
    let (bsz, t) = (cfg.batch, cfg.seq);
    let mut merged = Array2::zeros((bsz * t, h * hd)); // (B·T, h·hd)
    for b in 0..bsz {
        let (qb, kb, vb) = (sequence(&q, b, t), sequence(&k, b, t), sequence(&v, b, t));
        for (head, slope) in slopes.iter().enumerate() {
            let g = head / (h / kv); // its key and value head
            let qh = qb.slice(s![.., head * hd..(head + 1) * hd]); // (T, hd)
            let kh = kb.slice(s![.., g * hd..(g + 1) * hd]); // (T, hd)
            let vh = vb.slice(s![.., g * hd..(g + 1) * hd]); // (T, hd)
            for tq in 0..t {
                let reads =
                    |j: usize| cfg.encoder || (j <= tq && window.is_none_or(|w| j + w > tq));
                let keys: Vec<usize> = (0..t).filter(|&j| reads(j)).collect();
                let scores: Vec<f64> = keys
                    .iter()
                    .map(|&j| {
                        let mut s = qh.row(tq).dot(&kh.row(j)) * scale;
                        if cfg.positions.kind == PosEmb::Alibi {
                            #[allow(clippy::cast_precision_loss)]
                            let back = j as f64 - tq as f64;
                            s += slope * back;
                        }
                        if let Some(c) = cfg.attention.softcap {
                            s = c * (s / c).tanh();
                        }
                        s
                    })
                    .collect();
                let top = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let exps: Vec<f64> = scores.iter().map(|s| (s - top).exp()).collect();
                let total: f64 = exps.iter().sum();
                for (e, &j) in exps.iter().zip(&keys) {
                    let mut out = merged.slice_mut(s![b * t + tq, head * hd..(head + 1) * hd]);
                    out.scaled_add(e / total, &vh.row(j));
                }
            }
        }
    }
    linear(w, &format!("{p}.out"), &merged) // (B·T, d)
}

/// q (B·T, h·hd), k and v (B·T, kv·hd).
type Qkv = (Array2<f64>, Array2<f64>, Array2<f64>);

/// q (B·T, h·hd), k and v (B·T, kv·hd): three matrices, or the columns
/// of one fused `qkv_proj`, `[q; k; v]` (concat) or `[q_g; k_g; v_g]` for
/// each K/V group g (grouped).
fn projections(cfg: &ModelConfig, w: &Params, p: &str, x: &Array2<f64>) -> Result<Qkv, PlainError> {
    let (h, kv, hd) = (cfg.attention.heads, cfg.attention.kv_heads, cfg.head_dim());
    if cfg.attention.fused_qkv == QkvFusion::Apart {
        let one = |name: &str| linear(w, &format!("{p}.{name}"), x);
        return Ok((one("q_proj")?, one("k_proj")?, one("v_proj")?));
    }
    let all = linear(w, &format!("{p}.qkv_proj"), x)?; // (B·T, (h + 2kv)·hd)
    // Each group's q, k and v columns, `groups` groups side by side.
    let (groups, qw) = match cfg.attention.fused_qkv {
        QkvFusion::Grouped => (kv, h / kv * hd),
        _ => (1, h * hd),
    };
    let kw = kv / groups * hd;
    let period = qw + 2 * kw;
    let cut = |lo: usize, width: usize| {
        let mut out = Array2::zeros((all.nrows(), width * groups));
        for g in 0..groups {
            let from = all.slice(s![.., g * period + lo..g * period + lo + width]);
            out.slice_mut(s![.., g * width..(g + 1) * width])
                .assign(&from);
        }
        out
    };
    Ok((cut(0, qw), cut(qw, kw), cut(qw + kw, kw)))
}

/// Rotary positions on every head of x (B·T, heads·hd): token t (its
/// position in its sequence) turns its pairs (i, i + r/2) of each head's
/// first r features by t·ω_i.
fn rotate(cfg: &ModelConfig, x: &mut Array2<f64>, heads: usize, hd: usize) {
    let r = cfg.rotary_dims().min(hd);
    let half = r / 2;
    let omega: Vec<f64> = (0..half).map(|i| frequency(cfg, i, r)).collect();
    for (row_at, mut row) in x.rows_mut().into_iter().enumerate() {
        #[allow(clippy::cast_precision_loss)]
        let t = (row_at % cfg.seq) as f64;
        for head in 0..heads {
            let at = head * hd;
            for (i, om) in omega.iter().enumerate() {
                let (c, sn) = ((t * om).cos(), (t * om).sin());
                let (a, b) = (row[at + i], row[at + i + half]);
                row[at + i] = a * c - b * sn;
                row[at + i + half] = b * c + a * sn;
            }
        }
    }
}

/// ω_i = θ^(−2i/r), stretched as the config's rope scaling says: all
/// divided by the factor (linear), or Llama 3's blend by wavelength.
fn frequency(cfg: &ModelConfig, i: usize, r: usize) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let base = cfg.positions.rope_theta.powf(-2.0 * i as f64 / r as f64);
    match cfg.positions.rope_scaling {
        None => base,
        Some(RopeScaling::Linear { factor }) => base / factor,
        Some(RopeScaling::Llama3 {
            factor,
            low_freq_factor: low,
            high_freq_factor: high,
            original_max_position_embeddings: ctx,
        }) => {
            #[allow(clippy::cast_precision_loss)]
            let ctx = ctx as f64;
            let wavelength = std::f64::consts::TAU / base;
            if wavelength < ctx / high {
                base // short waves kept
            } else if wavelength > ctx / low {
                base / factor // long waves stretched
            } else {
                let smooth = (ctx / wavelength - low) / (high - low);
                (1.0 - smooth) * base / factor + smooth * base
            }
        }
    }
}

/// ALiBi's slope per head, BLOOM's series: with p the largest power of 2
/// not above h, 2^(−8i/p) for i = 1..=p, then for the heads past p every
/// other term of the series of 2p, 2^(−8i/2p) for i = 1, 3, 5, ….
fn alibi_slopes(h: usize) -> Vec<f64> {
    let mut p = 1;
    while p * 2 <= h {
        p *= 2;
    }
    #[allow(clippy::cast_precision_loss)]
    let term = |of: usize, i: usize| (-8.0 * i as f64 / of as f64).exp2();
    let mut slopes: Vec<f64> = (1..=p).map(|i| term(p, i)).collect();
    slopes.extend((0..h - p).map(|k| term(2 * p, 2 * k + 1)));
    slopes
}

#[cfg(test)]
mod tests {
    use super::alibi_slopes;

    #[test]
    fn alibi_slopes_follow_bloom_s_series() {
        assert_eq!(alibi_slopes(4), [0.25, 0.0625, 0.015_625, 0.003_906_25]);
        // 6 heads: 2^(−2i) for i = 1..=4, then 2^(−1), 2^(−3).
        let six = alibi_slopes(6);
        assert_eq!(six[4..], [0.5, 0.125]);
        assert_ne!(alibi_slopes(3), alibi_slopes(4)[..3]);
    }
}
