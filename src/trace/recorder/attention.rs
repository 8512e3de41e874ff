//! Attention's core, recorded as its three events (scores, weights,
//! context) from one fused pass when the backend has one: no (B, h, T, S)
//! tensor is built, and the events hold the same shapes and stats.

use super::{In, Recorder, Stop, Val};
use crate::ops::{Backend, Op};

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
        let (s_path, w_path) = (format!("{p}.scores"), format!("{p}.weights"));
        let about = self.describe(&scores, &[In::Act(q), In::Act(k)]);
        let s_axes = about.axes.clone();
        let (event, operands) = about.event(&s_path, &scores, &s_shape, false);
        self.note(event, Some((s_stats, None)), operands)?;
        let about = self.about_events(&softmax, &[(&s_path, &s_shape, &s_axes)]);
        let w_axes = about.axes.clone();
        let (event, operands) = about.event(&w_path, &softmax, &w_shape, false);
        self.note(event, Some((w_stats, None)), operands)?;
        let parts = [
            (w_path.as_str(), &w_shape[..], &w_axes[..]),
            (&v.path, vs, &v.axes),
        ];
        let about = self.about_events(&sum, &parts);
        let path = format!("{p}.context");
        let (event, operands) = about.event(&path, &sum, B::shape(&c), false);
        self.push(event, c, Some(operands), None)
    }
}
