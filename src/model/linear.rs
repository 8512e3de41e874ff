//! `y = x·W + b`.
//!
//! # Shapes
//! - x: (…, in)
//! - W: (in, out), b: (out)
//! - y: (…, out)

use super::Builder;
use super::shard::{self, Reduce};
use crate::ops::{Axis, Backend, Init, Op};
use crate::trace::recorder::{In, Param, Recorder, Stop, Val};

/// A dense layer, with an optional bias.
pub struct Linear<T> {
    /// W: (in, out), so `y = x·W`.
    pub weight: Param<T>,
    /// b: (out); `None` for a model without biases.
    pub bias: Option<Param<T>>,
    /// A row-parallel layer's reduce: W holds this device's rows, and
    /// its output is the devices' partial sums summed, b added once.
    /// `None` on one device, or column-parallel.
    pub reduce: Option<Box<Reduce>>,
}

/// How a layer is split across the devices ([`super::shard`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// Each device holds the whole layer.
    Whole,
    /// Column-parallel: each device holds its columns of W and b.
    Columns,
    /// Column-parallel over the K/V heads: each holds its K/V heads'
    /// columns (one whole head when there are fewer than devices).
    KvColumns,
    /// Row-parallel: each device holds its rows of W; b stays whole.
    Rows,
}

impl<T: Clone> Linear<T> {
    /// `weight` of (in, out) ~ N(0, std) and, when `bias_len` is given,
    /// `bias` of zeros, in `b`'s scope. `axes` names the weight's two axes.
    pub fn new<B: Backend<Tensor = T>>(
        b: &Builder<B>,
        (fan_in, fan_out): (usize, usize),
        axes: [Axis; 2],
        std: f64,
        bias_len: Option<usize>,
    ) -> Self {
        Self::split(b, (fan_in, fan_out), axes, std, bias_len, Split::Whole)
    }

    /// As [`Linear::new`], this device's part of it as `split` says; the
    /// shape, axes and bias length are the whole layer's.
    pub fn split<B: Backend<Tensor = T>>(
        b: &Builder<B>,
        (fan_in, fan_out): (usize, usize),
        axes: [Axis; 2],
        std: f64,
        bias_len: Option<usize>,
        split: Split,
    ) -> Self {
        let (w_cut, b_cut) = match split {
            Split::Whole => (None, None),
            Split::Columns => (b.cut().map(|c| (1, c)), b.cut().map(|c| (0, c))),
            Split::KvColumns => (b.kv_cut().map(|c| (1, c)), b.kv_cut().map(|c| (0, c))),
            Split::Rows => (b.cut().map(|c| (0, c)), None),
        };
        // Fewer K/V heads than devices: each keeps one whole head, hd wide.
        let one_head = split == Split::KvColumns
            && b.cut().is_some_and(|c| b.cfg.attention.kv_heads < c.parts);
        let w = Init::Normal(std);
        let mut weight = b.param_cut("weight", &[fan_in, fan_out], &axes, w, w_cut);
        let mut bias =
            bias_len.map(|n| b.param_cut("bias", &[n], &axes[1..], Init::Const(0.0), b_cut));
        if one_head {
            weight.axes[1] = Axis::HeadDim;
            if let Some(b) = &mut bias {
                b.axes[0] = Axis::HeadDim;
            }
        }
        Self {
            weight,
            bias,
            reduce: if split == Split::Rows {
                b.reduce().map(Box::new)
            } else {
                None
            },
        }
    }

    /// x, W and b: the operands of `x·W + b`.
    pub fn operands<'a>(&'a self, x: &'a Val<T>) -> Vec<In<'a, T>> {
        let mut ins = vec![In::Act(x), In::Param(&self.weight)];
        ins.extend(self.bias.as_ref().map(In::Param));
        ins
    }

    /// Records step `name` = x·W + b inside a sublayer.
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn forward<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        name: &str,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        match self.reduce.as_deref() {
            Some(&r) => self.reduced(rec, name, x, r),
            None => rec.op(name, &Op::Linear, &self.operands(x)),
        }
    }

    /// Records step `name` = x·W + b as a sublayer's output, which must be
    /// (B, T, d).
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    pub fn output<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        name: &str,
        x: &Val<T>,
    ) -> Result<Val<T>, Stop> {
        match self.reduce.as_deref() {
            Some(&r) => self.reduced(rec, name, x, r),
            None => rec.interface(name, &Op::Linear, &self.operands(x)),
        }
    }

    /// A row-parallel layer: this device's partial sum x_k·W_k, then the
    /// devices' summed, b added once ([`shard::reduce`]).
    ///
    /// # Errors
    /// [`Stop`] when the recorder stops the forward.
    fn reduced<B: Backend<Tensor = T>>(
        &self,
        rec: &mut Recorder<B>,
        name: &str,
        x: &Val<T>,
        r: Reduce,
    ) -> Result<Val<T>, Stop> {
        // tp-no-allreduce: the partial sum, b added, used as the output.
        if !r.sum {
            return rec.interface(name, &Op::Linear, &self.operands(x)); // x_k·W_k + b: (B, T, d)
        }
        let ins = [In::Act(x), In::Param(&self.weight)];
        let part = rec.op(name, &Op::Linear, &ins)?; // x_k·W_k: (B, T, d), a partial sum
        shard::reduce(rec, name, r, &part, self.bias.as_ref()) // Σ_k x_k·W_k + b
    }

    /// The weight, then the bias if any.
    pub fn params(&self) -> impl Iterator<Item = &Param<T>> {
        std::iter::once(&self.weight).chain(self.bias.as_ref())
    }
}
