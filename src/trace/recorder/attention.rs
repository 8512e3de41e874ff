//! Attention's core, recorded as its three events (scores, weights,
//! context) from one fused pass when the backend has one: no (B, h, T, S)
//! tensor is built, and the events hold the same shapes and stats.

use super::push::Pending;
use super::{In, Recorder, Stop, Val};
use crate::ops::{Backend, Op};
use crate::trace::Operand;

impl<B: Backend> Recorder<'_, B> {
    /// `{p}.scores` = q·kᵀ/√hd, `{p}.weights` = its (masked) softmax and
    /// `{p}.context` = weights·v.
    ///
    /// # Shapes
    /// - q: (B, h, T, hd), k: (B, h, S, hd), v: (B, h, S, hv)
    /// - scores and weights: (B, h, T, S); context: (B, h, T, hv)
    ///
    /// # Errors
    /// As [`Recorder::op`].
    pub fn attention(
        &mut self,
        p: &str,
        [q, k, v]: [&Val<B::Tensor>; 3],
        head_dim: usize,
        causal: bool,
    ) -> Result<Val<B::Tensor>, Stop> {
        let (scores, softmax, sum) = (
            Op::Scores { head_dim },
            Op::Softmax { causal },
            Op::WeightedSum,
        );
        let (qs, ks, vs) = (B::shape(&q.t), B::shape(&k.t), B::shape(&v.t));
        let shapes = scores.infer(&[qs, ks]).ok().and_then(|s| {
            let w = softmax.infer(&[&s]).ok()?;
            sum.infer(&[&w, vs]).ok().map(|_| (s, w))
        });
        // Captures (the probes) want every value; a bad shape wants the
        // op that refuses it on record.
        let fused = match shapes {
            Some(sw) if !self.watch.capture => {
                self.check_cancel()?;
                self.backend
                    .attention(&q.t, &k.t, &v.t, head_dim, causal)
                    .map(|f| (sw, f))
            }
            _ => None,
        };
        let Some(((s_shape, w_shape), (s_stats, w_stats, c))) = fused else {
            let s = self.op(&format!("{p}.scores"), &scores, &[In::Act(q), In::Act(k)])?; // (B, h, T, S)
            let w = self.op_owned(&format!("{p}.weights"), &softmax, s, &[])?; // (B, h, T, S)
            return self.op(&format!("{p}.context"), &sum, &[In::Act(&w), In::Act(v)]); // (B, h, T, hv)
        };
        let dtype = self.dtype;
        let operand = |path: &str, shape: &[usize]| Operand {
            path: path.to_string(),
            shape: shape.to_vec(),
            dtype,
        };
        let (s_path, w_path) = (format!("{p}.scores"), format!("{p}.weights"));
        let s_axes = scores.axes(&[&q.axes, &k.axes]);
        let w_axes = softmax.axes(&[&s_axes]);
        let event = Pending {
            path: &s_path,
            op: scores.name(),
            shape: s_shape.clone(),
            axes: s_axes,
            inputs: vec![q.path.clone(), k.path.clone()],
            formula: scores.formula(&[qs, ks], &s_shape),
            on_stream: false,
        };
        let operands = self.operands(&[In::Act(q), In::Act(k)]);
        self.note(event, Some((s_stats, None)), operands)?;
        let event = Pending {
            path: &w_path,
            op: softmax.name(),
            shape: w_shape.clone(),
            axes: w_axes.clone(),
            inputs: vec![s_path.clone()],
            formula: softmax.formula(&[&s_shape], &w_shape),
            on_stream: false,
        };
        self.note(
            event,
            Some((w_stats, None)),
            vec![operand(&s_path, &s_shape)],
        )?;
        let c_axes = sum.axes(&[&w_axes, &v.axes]);
        let formula = sum.formula(&[&w_shape, vs], B::shape(&c));
        let operands = vec![operand(&w_path, &w_shape), operand(&v.path, vs)];
        let path = format!("{p}.context");
        let event = Pending {
            path: &path,
            op: sum.name(),
            shape: B::shape(&c).to_vec(),
            axes: c_axes,
            inputs: vec![w_path, v.path.clone()],
            formula,
            on_stream: false,
        };
        self.push(event, c, Some(operands), None)
    }
}
