//! A mixture of experts in the MLP's place, as Mixtral's sparse MoE block:
//! a router scores E expert MLPs for every token, each token is sent to
//! its top k, and their outputs come back weighted.
//!
//! ```text
//! logits  = x·W_r                     (B, T, E)
//! probs   = softmax(logits)           (B, T, E)    over the experts
//! ids     = top_k(probs)              (B, T, k)    which experts, best first
//! w       = probs[ids] / Σ probs[ids] (B, T, k)    sums to 1 per token
//! x_e     = x[tokens that chose e]    (n_e, d)     per expert: leaves (B, T, d)
//! y_e     = MLP_e(x_e)                (n_e, d)
//! y       = Σ_e w_e · y_e onto tokens (B, T, d)    returns
//! ```
//!
//! n_e is the data's: how many tokens chose expert e (at most B·T; the E
//! counts sum to B·T·k). A shape-only run records the bound.
//!
//! # Shapes
//! - x, output: (B, T, d)
//! - each expert: (n_e, d) → (n_e, d_ff) → (n_e, d)

use super::Builder;
use super::linear::Linear;
use super::mlp::Mlp;
use crate::ops::{Axis, Backend, Op};
use crate::trace::Role;
use crate::trace::recorder::{In, Param, Recorder, Stop, Val};

/// The router and the experts.
pub struct Moe<T> {
    /// The router W_r: (d, E), no bias.
    pub router: Linear<T>,
    /// The experts, `expert1` … `expertE`: each an MLP on (n_e, d).
    pub experts: Vec<Mlp<T>>,
    /// Experts per token.
    pub k: usize,
    /// The most tokens an expert takes (the `moe-capacity` fault).
    pub capacity: Option<usize>,
}

impl<T: Clone> Moe<T> {
    /// The router and `experts` MLPs, in `b`'s scope (`blockN.moe`).
    pub fn new<B: Backend<Tensor = T>>(b: &Builder<B>) -> Self {
        // The anatomy has a moe sublayer only with a mixture.
        let (e, k) = b.cfg.mixture.map_or((0, 0), |m| (m.experts, m.top_k));
        let d = b.cfg.d_model;
        let router = Linear::new(
            &b.pp("router"),
            (d, e),
            [Axis::Model, Axis::Experts],
            Builder::<B>::STD,
            None,
        );
        let experts = (1..=e)
            .map(|i| Mlp::new(&b.pp(&format!("expert{i}"))))
            .collect();
        Self {
            router,
            experts,
            k,
            capacity: b.arch.capacity,
        }
    }

    /// Records the mixture on x (B, T, d), in `rec`'s scope
    /// (`blockN.moe`), one step per line.
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn forward<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        let (k, capacity) = (self.k, self.capacity);
        let logits = self.router.forward(rec.role(Role::Router), "router", x)?; // x·W_r: (B, T, E)
        let probs = rec.op_owned("probs", &Op::RouterSoftmax, logits, &[])?; // softmax over E: (B, T, E)
        let ids = rec.op("top_k", &Op::TopK { k }, &[In::Act(&probs)])?; // (B, T, k)
        let w = rec.op(
            "weights",
            &Op::RouteWeights,
            &[In::Act(&probs), In::Act(&ids)],
        )?; // (B, T, k)
        let mut ys = Vec::with_capacity(self.experts.len());
        for (e, expert) in self.experts.iter().enumerate() {
            let mut rec = rec.pp(&format!("expert{}", e + 1));
            let dispatch = Op::Dispatch {
                expert: e,
                capacity,
            };
            let x_e = rec.op("dispatch", &dispatch, &[In::Act(x), In::Act(&ids)])?; // (n_e, d)
            ys.push(expert.rows(&mut rec, &x_e)?); // MLP_e(x_e): (n_e, d)
        }
        let mut ins = vec![In::Act(&ids), In::Act(&w)];
        ins.extend(ys.iter().map(In::Act));
        rec.interface("combine", &Op::Combine { capacity }, &ins) // Σ_e w_e·y_e: (B, T, d)
    }

    /// The router's weight, then every expert's parameters.
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        self.router
            .params()
            .chain(self.experts.iter().flat_map(Mlp::params))
    }
}
