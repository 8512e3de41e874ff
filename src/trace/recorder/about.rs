//! What an event says of its operands, and the event it makes.

use super::push::Pending;
use crate::config::DType;
use crate::ops::{Op, fmt_shape};
use crate::shape::Axis;
use crate::trace::{Operand, Role};
use crate::why::{self, Step, explain::Part};

/// What an event says of its operands: its output's axes, the paths of
/// the activations it reads, every operand's path, shape and dtype, and
/// every operand's axes.
#[derive(Clone)]
pub(super) struct About {
    pub axes: Vec<Axis>,
    pub inputs: Vec<String>,
    pub operands: Vec<Operand>,
    pub operand_axes: Vec<Vec<Axis>>,
    pub operand_roles: Vec<Option<Role>>,
}

impl About {
    /// The event at `path` (step `name`, in `role`) of `op`'s output of `shape`, with
    /// its formula and its why against the stream's `stream` shape, and its
    /// operands.
    pub fn event(
        self,
        (path, name, role): (String, &str, Role),
        op: &Op,
        (shape, dtype): (Vec<usize>, DType),
        (on_stream, stream, stream_dtype): (bool, &[usize], DType),
    ) -> (Pending, Vec<Operand>) {
        let shapes: Vec<&[usize]> = self.operands.iter().map(|o| o.shape.as_slice()).collect();
        let parts: Vec<Part> = self
            .operands
            .iter()
            .zip(&self.operand_axes)
            .zip(&self.operand_roles)
            .map(|((o, axes), role)| Part {
                path: &o.path,
                shape: &o.shape,
                axes,
                dtype: o.dtype,
                role: *role,
            })
            .collect();
        let (sources, why) = why::explain(&Step {
            op,
            name,
            role,
            path: &path,
            ins: &parts,
            out: &shape,
            axes: &self.axes,
            stream,
            dtype,
            stream_dtype,
        });
        let event = Pending {
            sources,
            why,
            path,
            op: op.kind(),
            role,
            // Parallel residuals sum the updates before their one add.
            formula: if role == Role::Update {
                format!(
                    "attn + mlp : {}+{} → {}",
                    fmt_shape(shapes[0]),
                    fmt_shape(shapes.get(1).copied().unwrap_or(&[])),
                    fmt_shape(&shape)
                )
            } else {
                op.formula(&shapes, &shape)
            },
            shape,
            dtype,
            axes: self.axes,
            inputs: self.inputs,
            on_stream,
        };
        (event, self.operands)
    }
}
