//! Groups of steps the model marks as fusable: the backend may run them
//! in one pass, and each step is still recorded as its own event.

use super::{In, Recorder, Stop, Val};
use crate::ops::{Backend, Fusion, Stats};
use std::collections::VecDeque;

/// The outputs of a fused group, handed to its steps in order: the stats
/// of each output it never built, then the group's last output.
pub(super) struct Fused<T> {
    pub stats: VecDeque<Stats>,
    pub last: Option<T>,
}

impl<B: Backend> Recorder<'_, B> {
    /// Runs `steps`, a group of steps on the operands `ins` that the
    /// backend may run in one pass as `fusion`. Either way every step is
    /// recorded as its own event, with the same shapes and stats: fused,
    /// the steps record what the pass gave instead of running their ops.
    /// Never fused while capturing values for the probes (unless the
    /// watch asks to fuse all the same, [`super::Watch::fuse`]), or when a step
    /// refuses its operands (the steps then run one by one, so the one
    /// that refuses is on record).
    ///
    /// # Errors
    /// As the steps.
    pub fn fusable(
        &mut self,
        fusion: Fusion,
        ins: &[In<B::Tensor>],
        steps: impl FnOnce(&mut Self) -> Result<Val<B::Tensor>, Stop>,
    ) -> Result<Val<B::Tensor>, Stop> {
        let shapes: Vec<&[usize]> = ins.iter().map(|i| Self::shape_of(i)).collect();
        // A 16-bit model rounds every step's output, which a pass that
        // never builds them cannot do: its steps run one by one.
        let half = self.dtype.is_half();
        let capturing = (self.watch.capture && !self.watch.fuse) || self.watch.tape;
        if half || capturing || self.fused.is_some() || !fusion.accepts(&shapes) {
            return steps(self);
        }
        self.check_cancel()?;
        let tensors: Vec<&B::Tensor> = ins.iter().map(In::tensor).collect();
        let Some((stats, last)) = self.backend.fused(&fusion, &tensors) else {
            return steps(self);
        };
        self.fused = Some(Fused {
            stats: stats.into(),
            last: Some(last),
        });
        let out = steps(self);
        self.fused = None;
        out
    }
}
