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
//! Split over N devices (`--ep N`), device r holds experts r·E/N .. and
//! b = B/N of the sequences. Its tokens are routed as above; then each of
//! its experts gathers its batch from every device, and the outputs go
//! back to the devices whose tokens they are:
//!
//! ```text
//! x_e  = all_to_all(x[tokens → e] of every device)   (n_e, d)    n_e as on one device
//! y_e  = MLP_e(x_e)                                   (n_e, d)
//! y'   = all_to_all(y_e's rows back to their device) (b·T·k, d)  this device's routes
//! y    = Σ_e w_e · y'_e onto tokens                   (b, T, d)
//! ```
//!
//! # Shapes
//! - x, output: (B, T, d), or (B/N, T, d) on one of N expert-parallel devices
//! - each expert: (n_e, d) → (n_e, d_ff) → (n_e, d)

use super::Builder;
use super::linear::Linear;
use super::mlp::Mlp;
use crate::ops::{Axis, Backend, Op, Route};
use crate::trace::Role;
use crate::trace::recorder::{In, Param, Recorder, Stop, Val};

/// An expert-parallel split of E experts over N devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    /// N, the devices.
    pub devices: usize,
    /// This device, from 0.
    pub rank: usize,
    /// E, the experts of the whole model.
    pub experts: usize,
}

/// The router and the experts.
pub struct Moe<T> {
    /// The router W_r: (d, E), no bias.
    pub router: Linear<T>,
    /// The experts this device holds, `expert1` … `expertE` (or under
    /// `--ep N` its E/N, numbered as in the whole model): each an MLP on
    /// (n_e, d).
    pub experts: Vec<Mlp<T>>,
    /// The number of the first expert held, from 0.
    pub first: usize,
    /// The expert-parallel split: N devices and this one's rank; `None`
    /// on one device.
    pub split: Option<Split>,
    /// Experts per token.
    pub k: usize,
    /// The most tokens an expert takes (the `moe-capacity` fault).
    pub capacity: Option<usize>,
    /// Whether the expert-parallel return stacks its parts in device
    /// order (the `ep-return-order` fault: not).
    pub return_in_order: bool,
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
        // Every expert, or under `--ep` this device's E/N of them.
        let held = b.cfg.held_experts();
        let first = held.start;
        let experts = held
            .map(|i| Mlp::new(&b.pp(&format!("expert{}", i + 1))))
            .collect();
        let d = b.cfg.devices;
        let split = d.experts_split().then_some(Split {
            devices: d.ep,
            rank: d.rank(),
            experts: e,
        });
        Self {
            router,
            experts,
            first,
            split,
            k,
            capacity: b.arch.capacity,
            return_in_order: b.arch.return_in_order,
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
        if let Some(split) = self.split {
            return self.across(rec, (x, &ids, &w), split);
        }
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
        let combine = Op::Combine {
            capacity,
            packed: false,
        };
        rec.interface("combine", &combine, &ins) // Σ_e w_e·y_e: (B, T, d)
    }

    /// The experts under expert parallelism, on this device's x (b, T, d)
    /// and its tokens' ids and weights (b, T, k): each of its experts
    /// gathers its batch from every device, and the outputs go back.
    fn across<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        (x, ids, w): (&Val<T>, &Val<T>, &Val<T>),
        split: Split,
    ) -> Result<Val<T>, Stop> {
        let mut rows = Vec::with_capacity(self.experts.len());
        let mut ys = Vec::with_capacity(self.experts.len());
        for (slot, expert) in self.experts.iter().enumerate() {
            let mut rec = rec.pp(&format!("expert{}", self.first + slot + 1));
            let dispatch = Op::AllToAll {
                devices: split.devices,
                route: Route::Dispatch {
                    experts: split.experts,
                    slot,
                    rank: split.rank,
                    rows: Vec::new(),
                },
            };
            let (x_e, from) = rec.all_to_all("dispatch", &dispatch, &[In::Act(x), In::Act(ids)])?; // every device's tokens → e: (n_e, d)
            rows.push(from);
            ys.push(expert.rows(&mut rec, &x_e)?); // MLP_e(x_e): (n_e, d)
        }
        let back = Op::AllToAll {
            devices: split.devices,
            route: Route::Return {
                rank: split.rank,
                rows,
                in_order: self.return_in_order,
                arrived: Vec::new(),
            },
        };
        let mut ins = vec![In::Act(ids)];
        ins.extend(ys.iter().map(In::Act));
        let (y, _) = rec.all_to_all("combine.all_to_all", &back, &ins)?; // this device's routes, expert order: (b·T·k, d)
        let combine = Op::Combine {
            capacity: None,
            packed: true,
        };
        let ins = [In::Act(ids), In::Act(w), In::Act(&y)];
        rec.interface("combine", &combine, &ins) // Σ_e w_e·y'_e: (b, T, d)
    }

    /// The router's weight, then every expert's parameters.
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        self.router
            .params()
            .chain(self.experts.iter().flat_map(Mlp::params))
    }
}
