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
use crate::ops::{Backend, Op, Shape, fmt_shape};

/// An activation: a tensor with the path of the event that produced it.
#[derive(Debug, Clone)]
pub struct Val<T> {
    pub path: String,
    pub t: T,
    pub axes: Vec<String>,
}

/// A parameter tensor with its name and axis names.
#[derive(Debug, Clone)]
pub struct Param<T> {
    pub name: String,
    pub t: T,
    pub axes: Vec<String>,
}

/// An operand of an op: an activation or a parameter.
#[derive(Debug)]
pub enum In<'a, T> {
    Act(&'a Val<T>),
    Param(&'a Param<T>),
}

impl<T> In<'_, T> {
    fn tensor(&self) -> &T {
        match self {
            In::Act(v) => &v.t,
            In::Param(p) => &p.t,
        }
    }

    fn axes(&self) -> &[String] {
        match self {
            In::Act(v) => &v.axes,
            In::Param(p) => &p.axes,
        }
    }

    fn path(&self) -> &str {
        match self {
            In::Act(v) => &v.path,
            In::Param(p) => &p.name,
        }
    }
}

/// The forward stopped; the recorder holds the [`Failure`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop;

/// The full values of one event, kept for the probes.
#[derive(Debug, Clone)]
pub struct Capture {
    pub path: String,
    pub op: String,
    pub shape: Shape,
    pub axes: Vec<String>,
    pub values: Vec<f64>,
}

/// Records events while running ops on a backend.
pub struct Recorder<'b, B: Backend> {
    backend: &'b B,
    stream: Shape,
    dtype: DType,
    keep_values: bool,
    capture: bool,
    events: Vec<Event>,
    captures: Vec<Capture>,
    failure: Option<Failure>,
}

/// What a finished recorder holds.
pub struct Recording {
    pub events: Vec<Event>,
    pub failure: Option<Failure>,
    pub captures: Vec<Capture>,
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
            keep_values,
            capture,
            events: Vec::new(),
            captures: Vec::new(),
            failure: None,
        }
    }

    /// Ends the recording.
    #[must_use]
    pub fn finish(self) -> Recording {
        Recording {
            events: self.events,
            failure: self.failure,
            captures: self.captures,
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
        self.push("input", "input", t, axes, vec![], formula, true, None)
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
        self.run(path, op, ins, false)
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
        self.run(path, op, ins, true)
    }

    /// The residual add `stream + update`, checked before it runs.
    ///
    /// # Errors
    /// [`Stop`] when either operand is not (B,T,d) in the input dtype.
    pub fn residual(
        &mut self,
        path: &str,
        stream: &Val<B::Tensor>,
        update: &Val<B::Tensor>,
    ) -> Result<Val<B::Tensor>, Stop> {
        let check = ResidualCheck::judge(
            (B::shape(&stream.t), self.dtype),
            (B::shape(&update.t), self.dtype),
            (&self.stream, self.dtype),
        );
        let ins = [In::Act(stream), In::Act(update)];
        if !check.ok {
            let detail = format!(
                "residual add {}: both operands must be {}",
                check.operands(),
                fmt_shape(&self.stream)
            );
            return Err(self.fail(path, "add", CheckName::Residual, detail, &ins, Some(check)));
        }
        let mut out = self.run(path, &Op::Add, &ins, true)?;
        if let Some(e) = self.events.last_mut() {
            e.check = Some(check);
        }
        out.axes = stream.axes.clone();
        Ok(out)
    }

    fn run(
        &mut self,
        path: &str,
        op: &Op,
        ins: &[In<B::Tensor>],
        on_stream: bool,
    ) -> Result<Val<B::Tensor>, Stop> {
        let tensors: Vec<&B::Tensor> = ins.iter().map(In::tensor).collect();
        let t = match self.backend.apply(op, &tensors) {
            Ok(t) => t,
            Err(e) => {
                let detail = format!("{} refused its operands: {e}", op.name());
                return Err(self.fail(path, op.name(), CheckName::OpShapes, detail, ins, None));
            }
        };
        let shapes: Vec<&[usize]> = tensors.iter().map(|t| B::shape(t)).collect();
        let formula = op.formula(&shapes, B::shape(&t));
        let axes = op.axes(&ins.iter().map(In::axes).collect::<Vec<_>>());
        let inputs = ins
            .iter()
            .filter_map(|i| match i {
                In::Act(v) => Some(v.path.clone()),
                In::Param(_) => None,
            })
            .collect();
        self.push(
            path,
            op.name(),
            t,
            axes,
            inputs,
            formula,
            on_stream,
            Some(ins),
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        path: &str,
        op: &str,
        t: B::Tensor,
        axes: Vec<String>,
        inputs: Vec<String>,
        formula: String,
        on_stream: bool,
        ins: Option<&[In<B::Tensor>]>,
    ) -> Result<Val<B::Tensor>, Stop> {
        let shape = B::shape(&t).to_vec();
        let departs = shape != self.stream;
        let returns = !departs && self.events.last().is_some_and(|e| e.departs);
        let summary = self.backend.summary(&t);
        let finite = summary.as_ref().is_none_or(|(s, _)| s.finite);
        let (stats, preview) = summary.map_or((None, None), |(s, p)| (Some(s), p));
        let own = [In::Act(&Val {
            path: path.to_string(),
            t: t.clone(),
            axes: axes.clone(),
        })];
        let operands = ins.unwrap_or(&own);
        if on_stream && departs {
            let detail = format!(
                "stream tensor {path} is {}, not {}",
                fmt_shape(&shape),
                fmt_shape(&self.stream)
            );
            return Err(self.fail(path, op, CheckName::Stream, detail, operands, None));
        }
        if !finite {
            let detail = format!("{path} holds non-finite values (NaN or ±inf)");
            return Err(self.fail(path, op, CheckName::Finite, detail, operands, None));
        }
        if self.capture
            && let Some(values) = self.backend.values(&t)
        {
            self.captures.push(Capture {
                path: path.to_string(),
                op: op.to_string(),
                shape: shape.clone(),
                axes: axes.clone(),
                values,
            });
        }
        self.events.push(Event {
            step: self.events.len(),
            path: path.to_string(),
            op: op.to_string(),
            shape,
            axes: axes.clone(),
            dtype: self.dtype,
            on_stream,
            departs,
            returns,
            inputs,
            formula,
            stats,
            check: None,
            values: preview.filter(|_| self.keep_values),
        });
        Ok(Val {
            path: path.to_string(),
            t,
            axes,
        })
    }

    fn fail(
        &mut self,
        path: &str,
        op: &str,
        check: CheckName,
        detail: String,
        ins: &[In<B::Tensor>],
        residual: Option<ResidualCheck>,
    ) -> Stop {
        let operands = ins
            .iter()
            .map(|i| Operand {
                path: i.path().to_string(),
                shape: B::shape(i.tensor()).to_vec(),
                dtype: self.dtype,
            })
            .collect();
        self.failure = Some(Failure {
            step: self.events.len(),
            path: path.to_string(),
            op: op.to_string(),
            check,
            detail,
            operands,
            residual,
        });
        Stop
    }
}
