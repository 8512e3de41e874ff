//! The values a recorder passes around: activations with their paths,
//! parameters with their names, operands, captures, and what to watch.

use crate::config::DType;
use crate::ops::{OpKind, Shape};
use crate::shape::Axis;
use crate::trace::Role;
use crate::trace::hooks::Hooks;

/// An activation: the path of the event that produced it, its shape and
/// axis names, and its tensor.
#[derive(Debug, Clone)]
pub struct Val<T> {
    /// Path of the event that produced it, e.g. `block1.attn.q`.
    pub path: String,
    /// Its size along each axis, e.g. `[2, 4, 4, 16]`.
    pub shape: Shape,
    /// Axis names, one per axis, e.g. (B, h, T, hd).
    pub axes: Vec<Axis>,
    /// Its element type: the stream's, f32 inside a 16-bit model's norm or
    /// softmax, i64 for the token ids.
    pub dtype: DType,
    /// What it is in the model: the step's role, which a step that only
    /// moves or casts it passes on.
    pub role: Role,
    /// `None` for a step inside a fused group that the backend never
    /// built: only the group's next step reads it, and that step records
    /// what the pass gave.
    t: Option<T>,
}

impl<T> Val<T> {
    /// The activation `t` of `shape` and `dtype` at `path`.
    pub fn new(path: String, shape: Shape, axes: Vec<Axis>, dtype: DType, t: T) -> Self {
        Self {
            path,
            shape,
            axes,
            dtype,
            role: Role::Other,
            t: Some(t),
        }
    }

    /// The same activation, as `role`.
    #[must_use]
    pub fn as_role(mut self, role: Role) -> Self {
        self.role = role;
        self
    }

    /// A fused group's step the backend never built.
    pub(crate) fn unbuilt(path: String, shape: Shape, axes: Vec<Axis>, dtype: DType) -> Self {
        Self {
            path,
            shape,
            axes,
            dtype,
            role: Role::Other,
            t: None,
        }
    }

    /// The tensor.
    ///
    /// # Panics
    /// On a fused group's inner step, which no code outside the group
    /// reads (the recorder hands those only to the group's next step).
    #[must_use]
    pub fn tensor(&self) -> &T {
        self.t.as_ref().expect(UNBUILT)
    }

    /// The tensor, handed over.
    ///
    /// # Panics
    /// As [`Val::tensor`].
    #[must_use]
    pub fn into_tensor(self) -> T {
        self.t.expect(UNBUILT)
    }
}

const UNBUILT: &str = "a fused step's output is read only by its group";

/// A parameter tensor with its name and axis names.
#[derive(Debug, Clone)]
pub struct Param<T> {
    /// Full name, scopes included, e.g. `block1.attn.q_proj.weight`: what a
    /// checkpoint is searched for and the seed is drawn from.
    pub name: String,
    /// The tensor: values (numeric) or only a shape (shape-only).
    pub t: T,
    /// Axis names, one per axis, e.g. (d, d) for (d_model, d_model).
    pub axes: Vec<Axis>,
}

/// An operand of an op: an activation or a parameter.
#[derive(Debug)]
pub enum In<'a, T> {
    /// An activation recorded earlier in the trace.
    Act(&'a Val<T>),
    /// A weight or bias of the model.
    Param(&'a Param<T>),
}

impl<T> Clone for In<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for In<'_, T> {}

impl<T> In<'_, T> {
    pub(crate) fn tensor(&self) -> &T {
        match self {
            In::Act(v) => v.tensor(),
            In::Param(p) => &p.t,
        }
    }

    pub(crate) fn axes(&self) -> &[Axis] {
        match self {
            In::Act(v) => &v.axes,
            In::Param(p) => &p.axes,
        }
    }

    pub(crate) fn path(&self) -> &str {
        match self {
            In::Act(v) => &v.path,
            In::Param(p) => &p.name,
        }
    }
}

/// The forward stopped; the recorder holds the [`crate::trace::Failure`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop;

/// The full values of one event, kept for the probes.
#[derive(Debug, Clone)]
pub struct Capture {
    /// The event's path, e.g. `block1.resid_1`.
    pub path: String,
    /// The op that produced it.
    pub op: OpKind,
    /// What it is in the model.
    pub role: Role,
    /// Its size along each axis.
    pub shape: Shape,
    /// Axis names, one per axis, e.g. (B, h, Tq, Tk).
    pub axes: Vec<Axis>,
    /// Every value, row-major, widened to f64.
    pub values: Vec<f64>,
}

/// What a recorder keeps and whom it tells.
#[derive(Debug, Clone, Default)]
pub struct Watch {
    /// Keep the values of small tensors in the events.
    pub values: bool,
    /// Keep every tensor's full values, for the probes.
    pub capture: bool,
    /// While capturing, let the backend still fuse what it fuses in an
    /// uncaptured run: the steps inside a fused group, which it never
    /// builds, are then not captured, their group's last step is. The
    /// `reference` check runs the fast path so, as the trace ran it.
    pub fuse: bool,
    /// Keep the tape the backward reads ([`super::tape::Tape`]): every
    /// step's operands and output, every parameter; fused groups then run
    /// step by step.
    pub tape: bool,
    /// Progress and cancel hooks.
    pub hooks: Hooks,
    /// Events the run is expected to record, for progress.
    pub expected: usize,
}
