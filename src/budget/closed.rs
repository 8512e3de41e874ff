//! The closed-form parameter count of the architecture a config declares,
//! written from the config alone. It exists only to cross-check the count
//! of the built weights (the `params` check); a fault that builds a wrong
//! variant makes the two differ.
//!
//! Per block, with kv·hd the width of K and V and h·hd that of Q (d
//! unless the config gives head_dim apart from it):
//! ```text
//! attention  2·d² + 2·d·kv·hd            (+ 2·d + 2·kv·hd biases)
//!            2·d·h·hd + 2·d·kv·hd        when h·hd ≠ d (+ h·hd + d + 2·kv·hd)
//!            Qwen2's q, k, v biases alone (qkv_bias): + h·hd + 2·kv·hd
//! MLP        2·d·d_ff, SwiGLU 3·d·d_ff   (+ d_ff + d, SwiGLU 2·d_ff + d)
//! norm       d γ                          (+ d β for LayerNorm with biases)
//! block      attention + MLP + 2·norm (4·norm with sandwich norms)
//! model      L·block + ln_f + V·d (wte) + ctx·d (wpe, learned positions) + V·d (untied head)
//! ```
//!
//! Split across N devices (`--tp N`), each holds h·hd/N of q and of the
//! output projection, d_ff/N of each MLP matrix, and kv'·hd of k and v
//! (kv' = kv/N, or 1 whole head when kv < N); the output projection's
//! and down's biases, the norms and the embeddings stay whole:
//! ```text
//! attention  2·d·h·hd/N + 2·d·kv'·hd     (+ h·hd/N + 2·kv'·hd + d)
//! MLP        2·d·d_ff/N, SwiGLU 3·d·d_ff/N (+ d_ff/N + d, SwiGLU 2·d_ff/N + d)
//! ```
//!
//! The vocabulary is split too: wte (and an untied head) hold V/N rows
//! each, of V' = V padded to a multiple of N under `--pad-vocab`.
//!
//! Split into M pipeline stages (`--pp M`), stage s holds blocks
//! s·L/M+1 ..= (s+1)·L/M; the first stage the embeddings (wte, wpe, wtt,
//! ln_emb), the last ln_f and the head (lm_head, or a copy of a tied wte,
//! as Megatron keeps one there; BERT's pooler).

use crate::config::{Head, ModelConfig, Placement, PosEmb};

/// One layer's closed-form count, under the path its built parameters share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Component {
    /// `block1.attn`, `block1.mlp`, `block1.ln_1`, `ln_f`, `wte`, …
    pub path: String,
    /// Its parameters by the formula.
    pub count: u64,
    /// The formula in symbols, e.g. `2·d² + 2·d·kv·hd + 2·d + 2·kv·hd`.
    pub formula: &'static str,
}

/// Every layer of the declared architecture, in build order.
#[must_use]
pub fn components(cfg: &ModelConfig) -> Vec<Component> {
    let n = |x: usize| x as u64;
    // One device's widths: the whole model's on one device.
    let tp = n(cfg.devices.tp);
    let (d, f, kv, hq) = (
        n(cfg.d_model),
        n(cfg.mlp.d_ff) / tp,
        n(cfg.local_kv_heads() * cfg.head_dim()),
        n(cfg.attn_width()) / tp,
    );
    let split = tp > 1;
    let bias = u64::from(cfg.bias);
    let mlp_bias = cfg.mlp_bias();
    let gated = cfg.mlp.act.is_gated();
    let c = |path: String, count, formula| Component {
        path,
        count,
        formula,
    };
    let qkv_bias = u64::from(cfg.bias || cfg.attention.qkv_bias);
    let attention = 2 * d * hq + 2 * d * kv + qkv_bias * (hq + 2 * kv) + bias * d;
    let (mlp, mlp_formula) = match (gated, mlp_bias, split) {
        (false, false, false) => (2 * d * f, "2·d·d_ff"),
        (false, true, false) => (2 * d * f + f + d, "2·d·d_ff + d_ff + d"),
        (true, false, false) => (3 * d * f, "3·d·d_ff"),
        (true, true, false) => (3 * d * f + 2 * f + d, "3·d·d_ff + 2·d_ff + d"),
        (false, false, true) => (2 * d * f, "2·d·d_ff/N"),
        (false, true, true) => (2 * d * f + f + d, "2·d·d_ff/N + d_ff/N + d"),
        (true, false, true) => (3 * d * f, "3·d·d_ff/N"),
        (true, true, true) => (3 * d * f + 2 * f + d, "3·d·d_ff/N + 2·d_ff/N + d"),
    };
    let norm_bias = cfg.norm_bias();
    let (norm, norm_formula) = if norm_bias { (2 * d, "2·d") } else { (d, "d") };
    let attn_formula = match (cfg.bias, cfg.attention.qkv_bias, hq * tp == d, split) {
        (true, _, true, false) => "2·d² + 2·d·kv·hd + 2·d + 2·kv·hd",
        (false, true, true, false) => "2·d² + 2·d·kv·hd + d + 2·kv·hd",
        (false, false, true, false) => "2·d² + 2·d·kv·hd",
        (true, _, false, false) => "2·d·h·hd + 2·d·kv·hd + h·hd + d + 2·kv·hd",
        (false, true, false, false) => "2·d·h·hd + 2·d·kv·hd + h·hd + 2·kv·hd",
        (false, false, false, false) => "2·d·h·hd + 2·d·kv·hd",
        (true, _, true, true) => "2·d²/N + 2·d·kv'·hd + d/N + d + 2·kv'·hd",
        (false, true, true, true) => "2·d²/N + 2·d·kv'·hd + d/N + 2·kv'·hd",
        (false, false, true, true) => "2·d²/N + 2·d·kv'·hd",
        (true, _, false, true) => "2·d·h·hd/N + 2·d·kv'·hd + h·hd/N + d + 2·kv'·hd",
        (false, true, false, true) => "2·d·h·hd/N + 2·d·kv'·hd + h·hd/N + 2·kv'·hd",
        (false, false, false, true) => "2·d·h·hd/N + 2·d·kv'·hd",
    };
    let mut out = Vec::new();
    let stages = cfg.devices;
    let (first, last) = (stages.first_stage(), stages.last_stage());
    for i in stages.blocks(cfg.layers) {
        out.push(c(format!("block{i}.ln_1"), norm, norm_formula));
        out.push(c(format!("block{i}.attn"), attention, attn_formula));
        // One norm shared by parallel sublayers: no ln_2.
        if !cfg.norms.shared {
            out.push(c(format!("block{i}.ln_2"), norm, norm_formula));
        }
        // A mixture: E expert MLPs and the router W_r (d, E).
        // Under --ep N a device holds E/N of the experts and the whole router.
        if let Some(mixture) = cfg.mixture {
            let e = n(mixture.experts);
            let held = n(cfg.held_experts().len());
            let moe_formula = match (gated, mlp_bias, held < e) {
                (false, false, false) => "E·2·d·d_ff + d·E",
                (false, true, false) => "E·(2·d·d_ff + d_ff + d) + d·E",
                (true, false, false) => "E·3·d·d_ff + d·E",
                (true, true, false) => "E·(3·d·d_ff + 2·d_ff + d) + d·E",
                (false, false, true) => "E/N·2·d·d_ff + d·E",
                (false, true, true) => "E/N·(2·d·d_ff + d_ff + d) + d·E",
                (true, false, true) => "E/N·3·d·d_ff + d·E",
                (true, true, true) => "E/N·(3·d·d_ff + 2·d_ff + d) + d·E",
            };
            out.push(c(format!("block{i}.moe"), held * mlp + d * e, moe_formula));
        } else {
            out.push(c(format!("block{i}.mlp"), mlp, mlp_formula));
        }
        // Sandwich norms: a second norm on each sublayer's output.
        if cfg.norms.placement == Placement::Sandwich {
            out.push(c(format!("block{i}.post_ln_1"), norm, norm_formula));
            out.push(c(format!("block{i}.post_ln_2"), norm, norm_formula));
        }
    }
    if cfg.norms.final_norm && last {
        out.push(c("ln_f".into(), norm, norm_formula));
    }
    if let Some(v) = cfg.vocab.size {
        // One device's rows of the vocabulary: V'/N of the padded V'.
        let rows = n(cfg.padded_vocab().unwrap_or(v)) / tp;
        let padded = rows * tp != n(v);
        let (vd, vd_formula) = match (split, padded) {
            (false, _) => (n(v) * d, "V·d"),
            (true, false) => (rows * d, "V/N·d"),
            (true, true) => (rows * d, "V'/N·d (V' padded)"),
        };
        let tied_head = cfg.vocab.tied && cfg.vocab.head == Head::Lm;
        if first || (last && tied_head) {
            out.push(c("wte".into(), vd, vd_formula));
        }
        if first && cfg.positions.kind == PosEmb::Learned {
            let rows = if cfg.positions.offset > 0 {
                "(ctx+offset)·d"
            } else {
                "ctx·d"
            };
            out.push(c("wpe".into(), n(cfg.positions()) * d, rows));
        }
        if let Some(types) = cfg.vocab.token_types.filter(|_| first) {
            out.push(c("wtt".into(), n(types) * d, "types·d"));
        }
        if cfg.norms.embed && first {
            out.push(c("ln_emb".into(), norm, norm_formula));
        }
        match cfg.vocab.head {
            _ if !last => {}
            Head::Lm if !cfg.vocab.tied => out.push(c("lm_head".into(), vd, vd_formula)),
            Head::Lm => {}
            Head::Pooler => {
                let (p, f) = if cfg.bias {
                    (d * d + d, "d² + d")
                } else {
                    (d * d, "d²")
                };
                out.push(c("pooler".into(), p, f));
            }
        }
    }
    out
}

/// The closed-form total of the declared architecture.
#[must_use]
pub fn total(cfg: &ModelConfig) -> u64 {
    components(cfg).iter().map(|c| c.count).sum()
}
