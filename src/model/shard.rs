//! A model split across devices, Megatron's way: which slice of each
//! weight a device holds, and the communication steps between.
//!
//! ```text
//! column-parallel  W (in, out) → W[:, k·out/N ..]   q, k, v, up, gate: its bias cut too
//! row-parallel     W (in, out) → W[k·in/N .., :]    out, down: y_k = x_k·W_k, a partial sum;
//!                                                   y = Σ_k y_k + b (all_reduce, b whole)
//! sequence-par.    norms, adds on (B, T/N, d);      all_gather → (B, T, d) before a sublayer,
//!                                                   reduce_scatter → (B, T/N, d) after it
//! vocabulary-par.  wte (V, d) → wte[k·V/N ..]       x0 = Σ_k lookup_k (all_reduce; zeros off
//!                                                   device k's rows); logits_k (B, T, V/N),
//!                                                   all_gather → (B, T, V)
//! ```
//!
//! A vocabulary N does not divide is padded with rows of zeros to V' (a
//! multiple of N) when `--pad-vocab` asks; the padding's scores are
//! dropped after the gather.
//!
//! Every device builds the whole weight (loaded, or seeded by its name as
//! one device would) and keeps its slice, so the devices together hold
//! exactly the one-device model's weights.

use super::Builder;
use crate::ops::{Axis, Backend, Init, Op};
use crate::trace::recorder::{In, Param, Recorder, Stop, Val};

/// One device's slice of an axis: part `rank` of `parts` equal parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut {
    /// How many equal parts the axis is cut into.
    pub parts: usize,
    /// The part this device keeps, from 0.
    pub rank: usize,
}

impl Cut {
    /// The op that keeps this part along `axis`.
    #[must_use]
    pub fn op(self, axis: usize) -> Op {
        Op::Scatter {
            devices: self.parts,
            axis,
            rank: self.rank,
        }
    }
}

/// One device's rows of a vocabulary split across devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VocabCut {
    /// N, the devices.
    pub devices: usize,
    /// This device, from 0.
    pub rank: usize,
    /// V, the model's vocabulary.
    pub v: usize,
    /// V', the vocabulary padded to a multiple of N (V when N divides it).
    pub padded: usize,
}

impl VocabCut {
    /// Rows each device holds: V'/N.
    #[must_use]
    pub fn rows(self) -> usize {
        self.padded / self.devices
    }

    /// The first row this device holds.
    #[must_use]
    pub fn from(self) -> usize {
        self.rank * self.rows()
    }
}

/// How a row-parallel layer's partial sums become the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reduce {
    /// N, the devices.
    pub devices: usize,
    /// This device, from 0.
    pub rank: usize,
    /// Sequence parallelism: a reduce-scatter over T instead of an
    /// all-reduce.
    pub sp: bool,
    /// Whether the partial sums are summed at all (`tp-no-allreduce`:
    /// not, the partial sum used as the output).
    pub sum: bool,
    /// Whether the reduce-scatter sums before it cuts
    /// (`sp-scatter-no-sum`: it cuts its own partial sum alone).
    pub scatter_sums: bool,
}

impl<B: Backend> Builder<'_, B> {
    /// This device's slice of a tensor-parallel split: part `device` of
    /// `tp`; `None` on one device.
    #[must_use]
    pub fn cut(&self) -> Option<Cut> {
        let d = self.cfg.devices;
        d.split().then_some(Cut {
            parts: d.tp,
            rank: d.rank(),
        })
    }

    /// This device's K/V heads: kv/N of them, or, with fewer K/V heads
    /// than devices, the one whole head its query heads read (replicated
    /// on N/kv devices).
    #[must_use]
    pub fn kv_cut(&self) -> Option<Cut> {
        let kv = self.cfg.attention.kv_heads;
        self.cut().map(|c| {
            if kv >= c.parts {
                c
            } else {
                Cut {
                    parts: kv,
                    rank: c.rank * kv / c.parts,
                }
            }
        })
    }

    /// This device's rows of the vocabulary; `None` on one device or
    /// without a vocabulary.
    #[must_use]
    pub fn vocab_cut(&self) -> Option<VocabCut> {
        let c = self.cut()?;
        Some(VocabCut {
            devices: c.parts,
            rank: c.rank,
            v: self.cfg.vocab.size?,
            padded: self.cfg.padded_vocab()?,
        })
    }

    /// Parameter `name` of whole `shape` and `axes` whose axis `axis` is
    /// the vocabulary: made as on one device, padded with zeros to V' when
    /// N does not divide V, then this device's V'/N of it kept.
    pub fn vocab_param(
        &self,
        name: &str,
        shape: &[usize],
        axes: &[Axis],
        init: Init,
        axis: usize,
    ) -> Param<B::Tensor> {
        let Some(cut) = self.vocab_cut() else {
            return self.param(name, shape, axes, init);
        };
        let mut whole = self.param(name, shape, axes, init);
        if cut.padded > cut.v {
            let pad = Op::Pad {
                axis,
                to: cut.padded,
            };
            // A loaded weight of another shape is kept whole, for the
            // shape checks to find.
            match self.backend.apply(&pad, &[&whole.t]) {
                Ok(t) => whole.t = t,
                Err(_) => return whole,
            }
        }
        let rows = Cut {
            parts: cut.devices,
            rank: cut.rank,
        };
        self.kept(whole, axis, rows)
    }

    /// How this device's row-parallel layers sum their partial sums;
    /// `None` on one device.
    #[must_use]
    pub fn reduce(&self) -> Option<Reduce> {
        self.cut().map(|c| Reduce {
            devices: c.parts,
            rank: c.rank,
            sp: self.cfg.devices.sp,
            sum: self.arch.all_reduce,
            scatter_sums: self.arch.scatter_sums,
        })
    }

    /// Parameter `name` of whole `shape` and `axes`, of which this device
    /// keeps `cut` along `axis`: the whole made as on one device, then
    /// cut. A shape the cut does not divide (a fault's wrong width) is
    /// kept whole, for the shape checks to find.
    pub fn param_cut(
        &self,
        name: &str,
        shape: &[usize],
        axes: &[Axis],
        init: Init,
        cut: Option<(usize, Cut)>,
    ) -> Param<B::Tensor> {
        let whole = self.param(name, shape, axes, init);
        match cut {
            Some((axis, cut)) => self.kept(whole, axis, cut),
            None => whole,
        }
    }

    /// This device's `cut` of `whole` along `axis`, its axis labelled as
    /// the part it is (`h/N`, `V/N`); `whole` itself when the cut does not
    /// divide it.
    fn kept(&self, whole: Param<B::Tensor>, axis: usize, cut: Cut) -> Param<B::Tensor> {
        match self.backend.collective(&cut.op(axis), &[&whole.t], &[]) {
            Ok(t) => {
                let mut axes = whole.axes;
                if let Some(a) = axes.get_mut(axis) {
                    *a = a.split(cut.parts);
                }
                Param {
                    name: whole.name,
                    t,
                    axes,
                }
            }
            Err(_) => whole,
        }
    }
}

/// Under sequence parallelism, every one of the `devices`' positions
/// gathered before a sublayer: (B, T/N, d) → (B, T, d).
///
/// # Errors
/// [`Stop`] when the recorder stops the forward.
pub fn gather<B: Backend>(
    rec: &mut Recorder<B>,
    devices: usize,
    x: &Val<B::Tensor>,
) -> Result<Val<B::Tensor>, Stop> {
    let all = Op::AllGather { devices, axis: 1 };
    rec.collective("all_gather", &all, x, &[], false) // (B, T/N, d) → (B, T, d)
}

/// A row-parallel layer's output from this device's partial sum `part`
/// (B, T, d) and the bias `b`, added once: the all-reduce Σ_k part_k + b
/// (B, T, d), or under sequence parallelism the reduce-scatter, this
/// device's positions of it (B, T/N, d).
///
/// # Errors
/// [`Stop`] when the recorder stops the forward.
pub fn reduce<B: Backend>(
    rec: &mut Recorder<B>,
    name: &str,
    r: Reduce,
    part: &Val<B::Tensor>,
    b: Option<&Param<B::Tensor>>,
) -> Result<Val<B::Tensor>, Stop> {
    let b: Vec<In<B::Tensor>> = b.map(In::Param).into_iter().collect();
    let (op, step) = match (r.sp, r.scatter_sums) {
        (false, _) => (Op::AllReduce { devices: r.devices }, "all_reduce"),
        (true, true) => (
            Op::ReduceScatter {
                devices: r.devices,
                axis: 1,
                rank: r.rank,
            },
            "reduce_scatter",
        ),
        // sp-scatter-no-sum: each device cuts its own partial sum.
        (true, false) => (
            Op::Scatter {
                devices: r.devices,
                axis: 1,
                rank: r.rank,
            },
            "reduce_scatter",
        ),
    };
    rec.collective(&format!("{name}.{step}"), &op, part, &b, true)
}
