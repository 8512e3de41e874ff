//! A linear layer and its activation, recorded as their two events from one
//! pass over the product when the backend has one: no pre-activation tensor
//! is built, and the events hold the same shapes and stats.

use super::{In, Recorder, Stop, Val};
use crate::ops::{Backend, Op, Unary};

impl<B: Backend> Recorder<'_, B> {
    /// `{up}` = x·W (+ b) and `{act}` = its activation.
    ///
    /// # Shapes
    /// - ins: x (…, k), W (k, n), optional b (n)
    /// - both events: (…, n)
    ///
    /// # Errors
    /// As [`Recorder::op`].
    pub fn linear_act(
        &mut self,
        up: &str,
        act: &str,
        unary: Unary,
        ins: &[In<B::Tensor>],
    ) -> Result<Val<B::Tensor>, Stop> {
        let (linear, activation) = (Op::Linear, Op::Act(unary));
        let shapes: Vec<&[usize]> = ins.iter().map(|i| B::shape(i.tensor())).collect();
        // Captures (the probes) want every value; a bad shape wants the
        // op that refuses it on record.
        let fused = match linear.infer(&shapes) {
            Ok(shape) if !self.watch.capture => {
                self.check_cancel()?;
                let (x, w) = (ins[0].tensor(), ins[1].tensor());
                let b = ins.get(2).map(In::tensor);
                self.backend.linear_act(x, w, b, unary).map(|f| (shape, f))
            }
            _ => None,
        };
        let Some((shape, (up_stats, y))) = fused else {
            let u = self.op(up, &linear, ins)?; // (…, n)
            return self.op_owned(act, &activation, u, &[]); // (…, n)
        };
        let about = self.describe(&linear, ins);
        let up_axes = about.axes.clone();
        let (event, operands) = about.event(up, &linear, &shape, false);
        self.note(event, Some((up_stats, None)), operands)?;
        let about = self.about_events(&activation, &[(up, &shape, &up_axes)]);
        let (event, operands) = about.event(act, &activation, &shape, false);
        self.push(event, y, Some(operands), None)
    }
}
