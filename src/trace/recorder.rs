//! Builds a [`Trace`] while the model runs.
//!
//! The model hands every intermediate to the recorder, which runs the op on
//! its backend and records the event. Four checks judge a single step, and
//! the recorder stops the forward at the first step one of them fails, so
//! the trace ends with the failure: an op refusing its operands
//! (`op-shapes`), a residual add of the wrong operands (`residual`), a
//! stream tensor off (B,T,d) (`stream`) and a non-finite value (`finite`).

use super::{CheckName, Event, Failure, Operand, ResidualCheck};
use crate::config::DType;
use crate::ops::{Backend, Op, OpError, Shape, fmt_shape};
use std::sync::atomic::Ordering;

mod about;
mod activated;
mod attention;
mod parts;
mod push;

use about::About;
use push::Pending;

pub use parts::{Capture, In, Param, Stop, Val, Watch};

/// Records events while running ops on a backend.
pub struct Recorder<'b, B: Backend> {
    backend: &'b B,
    stream: Shape,
    dtype: DType,
    watch: Watch,
    events: Vec<Event>,
    captures: Vec<Capture>,
    failure: Option<Failure>,
    cancelled: bool,
}

/// What a finished recorder holds.
pub struct Recording {
    pub events: Vec<Event>,
    pub failure: Option<Failure>,
    pub captures: Vec<Capture>,
    /// The cancel hook stopped the run.
    pub cancelled: bool,
}

impl<'b, B: Backend> Recorder<'b, B> {
    /// A recorder expecting stream tensors of `stream` shape (B,T,d).
    /// `keep_values` keeps the values of small tensors in the events;
    /// `capture` keeps every tensor's full values for the probes.
    pub fn new(backend: &'b B, stream: Shape, keep_values: bool, capture: bool) -> Self {
        Self {
            backend,
            stream,
            dtype: backend.dtype(),
            watch: Watch {
                values: keep_values,
                capture,
                ..Watch::default()
            },
            events: Vec::new(),
            captures: Vec::new(),
            failure: None,
            cancelled: false,
        }
    }

    /// The same recorder, keeping and telling as `watch` says.
    #[must_use]
    pub fn watched(mut self, watch: Watch) -> Self {
        self.watch = watch;
        self
    }

    /// Ends the recording.
    #[must_use]
    pub fn finish(self) -> Recording {
        Recording {
            events: self.events,
            failure: self.failure,
            captures: self.captures,
            cancelled: self.cancelled,
        }
    }

    /// Records the model input x0, named `input`, with axes (B,T,d).
    ///
    /// # Errors
    /// [`Stop`] when x0 is not (B,T,d) or not finite.
    pub fn input(&mut self, t: B::Tensor) -> Result<Val<B::Tensor>, Stop> {
        let shape = B::shape(&t).to_vec();
        let formula = format!("x0 : {}", fmt_shape(&shape));
        let axes = ["B", "T", "d"].map(String::from).to_vec();
        let event = Pending {
            path: "input",
            op: "input",
            shape,
            axes,
            inputs: vec![],
            formula,
            on_stream: true,
        };
        self.push(event, t, None, None)
    }

    /// Runs an op inside a sublayer.
    ///
    /// # Errors
    /// [`Stop`] when the op refuses its operands or gives non-finite values.
    pub fn op(
        &mut self,
        path: &str,
        op: &Op,
        ins: &[In<B::Tensor>],
    ) -> Result<Val<B::Tensor>, Stop> {
        self.run(path, op, None, ins, false)
    }

    /// As [`Recorder::op`], handing over the first operand `x`, which the
    /// backend may compute into (softmax, activations): no new buffer.
    ///
    /// # Errors
    /// As [`Recorder::op`].
    pub fn op_owned(
        &mut self,
        path: &str,
        op: &Op,
        x: Val<B::Tensor>,
        rest: &[In<B::Tensor>],
    ) -> Result<Val<B::Tensor>, Stop> {
        self.run(path, op, Some((x, 0)), rest, false)
    }

    /// Runs an op whose output is a sublayer interface: a norm output or a
    /// sublayer's output, which must be (B,T,d).
    ///
    /// # Errors
    /// As [`Recorder::op`], and when the output is not (B,T,d).
    pub fn interface(
        &mut self,
        path: &str,
        op: &Op,
        ins: &[In<B::Tensor>],
    ) -> Result<Val<B::Tensor>, Stop> {
        self.run(path, op, None, ins, true)
    }

    /// The residual add `stream + update`, checked before it runs. The
    /// update is handed over: the sum is computed into it (addition
    /// commutes, so the values are those of `stream + update`).
    ///
    /// # Errors
    /// [`Stop`] when either operand is not (B,T,d) in the input dtype.
    pub fn residual(
        &mut self,
        path: &str,
        stream: &Val<B::Tensor>,
        update: Val<B::Tensor>,
    ) -> Result<Val<B::Tensor>, Stop> {
        let check = ResidualCheck::judge(
            (B::shape(&stream.t), self.dtype),
            (B::shape(&update.t), self.dtype),
            (&self.stream, self.dtype),
        );
        let ins = [In::Act(stream), In::Act(&update)];
        if !check.ok {
            let detail = format!(
                "residual add {}: both operands must be {}",
                check.operands(),
                fmt_shape(&self.stream)
            );
            let operands = self.operands(&ins);
            return Err(self.fail(
                path,
                "add",
                CheckName::Residual,
                detail,
                operands,
                Some(check),
            ));
        }
        let mut out = self.run(path, &Op::Add, Some((update, 1)), &[In::Act(stream)], true)?;
        if let Some(e) = self.events.last_mut() {
            e.check = Some(check);
        }
        out.axes = stream.axes.clone();
        Ok(out)
    }

    /// Runs `op` on `ins`, with `owned`'s value handed over when given, as
    /// operand number `at` of the event (the backend gets it first).
    fn run(
        &mut self,
        path: &str,
        op: &Op,
        owned: Option<(Val<B::Tensor>, usize)>,
        ins: &[In<B::Tensor>],
        on_stream: bool,
    ) -> Result<Val<B::Tensor>, Stop> {
        self.check_cancel()?;
        let mut all: Vec<In<B::Tensor>> = ins.to_vec();
        if let Some((x, at)) = &owned {
            all.insert(*at, In::Act(x));
        }
        let about = self.describe(op, &all);
        drop(all);
        let rest: Vec<&B::Tensor> = ins.iter().map(In::tensor).collect();
        let result = match owned {
            Some((x, _)) => self.backend.apply_owned(op, x.t, &rest),
            None => self.backend.apply(op, &rest),
        };
        let t = match result {
            Ok(t) => t,
            Err(e) => return Err(self.refused(path, op, &e, about.operands)),
        };
        // Split or merged heads hold their input's values: the same stats.
        let same = match op {
            Op::SplitHeads { .. } | Op::MergeHeads(_) => {
                about.inputs.first().and_then(|p| self.stats_of(p))
            }
            _ => None,
        };
        let (event, operands) = about.event(path, op, B::shape(&t), on_stream);
        self.push(event, t, Some(operands), same)
    }

    /// The axes, inputs and operands of an event of `op` on `all`.
    fn describe(&self, op: &Op, all: &[In<B::Tensor>]) -> About {
        About {
            axes: op.axes(&all.iter().map(In::axes).collect::<Vec<_>>()),
            inputs: all
                .iter()
                .filter_map(|i| match i {
                    In::Act(v) => Some(v.path.clone()),
                    In::Param(_) => None,
                })
                .collect(),
            operands: self.operands(all),
        }
    }

    /// The `op-shapes` failure of `op` refusing its operands.
    fn refused(&mut self, path: &str, op: &Op, e: &OpError, operands: Vec<Operand>) -> Stop {
        let detail = format!("{} refused its operands: {e}", op.name());
        self.fail(path, op.name(), CheckName::OpShapes, detail, operands, None)
    }

    /// The stats recorded for the event at `path`, the latest such.
    fn stats_of(&self, path: &str) -> Option<crate::ops::Stats> {
        self.events.iter().rev().find(|e| e.path == path)?.stats
    }

    /// Stops the run when the cancel hook is set.
    fn check_cancel(&mut self) -> Result<(), Stop> {
        if let Some(c) = &self.watch.hooks.cancel
            && c.load(Ordering::Relaxed)
        {
            self.cancelled = true;
            return Err(Stop);
        }
        Ok(())
    }

    /// The path, shape and dtype of each operand, for a failure.
    fn operands(&self, ins: &[In<B::Tensor>]) -> Vec<Operand> {
        ins.iter()
            .map(|i| Operand {
                path: i.path().to_string(),
                shape: B::shape(i.tensor()).to_vec(),
                dtype: self.dtype,
            })
            .collect()
    }
}
