//! What an event says of its operands, and the event it makes: shared by
//! the ops run one at a time and the fused passes, which record events
//! whose tensors they never built.

use super::Recorder;
use super::push::Pending;
use crate::ops::{Backend, Op};
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
    pub fn event<'a>(
        self,
        path: &'a str,
        op: &Op,
        shape: &[usize],
        on_stream: bool,
    ) -> (Pending<'a>, Vec<Operand>) {
        let shapes: Vec<&[usize]> = self.operands.iter().map(|o| o.shape.as_slice()).collect();
        let event = Pending {
            path,
            op: op.name(),
            shape: shape.to_vec(),
            axes: self.axes,
            inputs: self.inputs,
            formula: op.formula(&shapes, shape),
            on_stream,
        };
        (event, self.operands)
    }
}

impl<B: Backend> Recorder<'_, B> {
    /// As [`Recorder::describe`], for operands given as `(path, shape,
    /// axes)`: events a fused pass recorded without building their tensor,
    /// or values.
    pub(super) fn about_events(&self, op: &Op, parts: &[(&str, &[usize], &[String])]) -> About {
        About {
            axes: op.axes(&parts.iter().map(|p| p.2).collect::<Vec<_>>()),
            inputs: parts.iter().map(|p| p.0.to_string()).collect(),
            operands: parts
                .iter()
                .map(|&(path, shape, _)| Operand {
                    path: path.to_string(),
                    shape: shape.to_vec(),
                    dtype: self.dtype,
                })
                .collect(),
        }
    }
}
