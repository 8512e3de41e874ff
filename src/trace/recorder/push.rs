//! Recording one event: its stats and preview, the stream and finiteness
//! checks, progress, and the failure that stops the forward.

use super::{Capture, Recorder, Stop, Val};
use crate::ops::{Backend, PREVIEW_MAX, Stats, fmt_shape};
use crate::plan::Progress;
use crate::trace::{CheckName, Event, Failure, Operand, ResidualCheck};

/// An event about to be recorded, before its checks.
pub(super) struct Pending<'a> {
    pub path: &'a str,
    pub op: &'a str,
    pub shape: Vec<usize>,
    pub axes: Vec<String>,
    pub inputs: Vec<String>,
    pub formula: String,
    pub on_stream: bool,
}

impl<B: Backend> Recorder<'_, B> {
    /// Records the event `e` of tensor `t` (`e.shape` is t's shape) and
    /// hands `t` on as a value. `operands` default to `t` itself (the
    /// input); `same` are the stats of the values `t` rearranges (split or
    /// merged heads), which a tensor too large to preview takes instead of
    /// reading them again.
    pub(super) fn push(
        &mut self,
        e: Pending,
        t: B::Tensor,
        operands: Option<Vec<Operand>>,
        same: Option<Stats>,
    ) -> Result<Val<B::Tensor>, Stop> {
        let len: usize = e.shape.iter().product();
        let summary = match same {
            Some(s) if len > PREVIEW_MAX => Some((s, None)),
            _ => self.backend.summary(&t),
        };
        let operands = operands.unwrap_or_else(|| {
            vec![Operand {
                path: e.path.to_string(),
                shape: e.shape.clone(),
                dtype: self.dtype,
            }]
        });
        let (path, op, shape, axes) = (e.path, e.op, e.shape.clone(), e.axes.clone());
        self.note(e, summary, operands)?;
        if self.watch.capture
            && let Some(values) = self.backend.values(&t)
        {
            self.captures.push(Capture {
                path: path.to_string(),
                op: op.to_string(),
                shape,
                axes: axes.clone(),
                values,
            });
        }
        Ok(Val {
            path: path.to_string(),
            t,
            axes,
        })
    }

    /// Records an event, or the failure of its stream or finiteness check.
    pub(super) fn note(
        &mut self,
        e: Pending,
        summary: Option<(Stats, Option<Vec<f64>>)>,
        operands: Vec<Operand>,
    ) -> Result<(), Stop> {
        let departs = e.shape != self.stream;
        let returns = !departs && self.events.last().is_some_and(|e| e.departs);
        let finite = summary.as_ref().is_none_or(|(s, _)| s.finite);
        let (stats, preview) = summary.map_or((None, None), |(s, p)| (Some(s), p));
        let failed = if e.on_stream && departs {
            let detail = format!(
                "stream tensor {} is {}, not {}",
                e.path,
                fmt_shape(&e.shape),
                fmt_shape(&self.stream)
            );
            Some((CheckName::Stream, detail))
        } else if !finite {
            let detail = format!("{} holds non-finite values (NaN or ±inf)", e.path);
            Some((CheckName::Finite, detail))
        } else {
            None
        };
        if let Some((check, detail)) = failed {
            return Err(self.fail(e.path, e.op, check, detail, operands, None));
        }
        self.events.push(Event {
            step: self.events.len(),
            path: e.path.to_string(),
            op: e.op.to_string(),
            shape: e.shape,
            axes: e.axes,
            dtype: self.dtype,
            on_stream: e.on_stream,
            departs,
            returns,
            inputs: e.inputs,
            formula: e.formula,
            stats,
            check: None,
            values: preview.filter(|_| self.watch.values),
        });
        if let Some(tell) = &self.watch.hooks.progress {
            tell(Progress {
                done: self.events.len(),
                expected: self.watch.expected.max(self.events.len()),
            });
        }
        Ok(())
    }

    pub(super) fn fail(
        &mut self,
        path: &str,
        op: &str,
        check: CheckName,
        detail: String,
        operands: Vec<Operand>,
        residual: Option<ResidualCheck>,
    ) -> Stop {
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
