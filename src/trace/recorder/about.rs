//! What an event says of its operands, and the event it makes.

use super::push::Pending;
use crate::ops::Op;
use crate::trace::Operand;

/// What an event says of its operands: its output's axes, the paths of
/// the activations it reads, and every operand's path, shape and dtype.
pub(super) struct About {
    pub axes: Vec<String>,
    pub inputs: Vec<String>,
    pub operands: Vec<Operand>,
}

impl About {
    /// The event at `path` of `op`'s output of `shape`, with its formula,
    /// and its operands.
    pub fn event(
        self,
        path: String,
        op: &Op,
        shape: Vec<usize>,
        on_stream: bool,
    ) -> (Pending, Vec<Operand>) {
        let shapes: Vec<&[usize]> = self.operands.iter().map(|o| o.shape.as_slice()).collect();
        let event = Pending {
            path,
            op: op.kind(),
            formula: op.formula(&shapes, &shape),
            shape,
            axes: self.axes,
            inputs: self.inputs,
            on_stream,
        };
        (event, self.operands)
    }
}
