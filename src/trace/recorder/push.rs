//! Recording one event: its stats and preview, the stream and finiteness
//! judges, progress, and the failure that stops the forward.

use super::{Capture, Recorder, Stop, Val};
use crate::ops::{Backend, OpKind, PREVIEW_MAX, Stats};
use crate::trace::hooks::Progress;
use crate::trace::{CheckName, Event, Failure, Operand, ResidualCheck, judge};
use crate::why::AxisSource;

/// An event about to be recorded, before its judges.
pub(super) struct Pending {
    pub path: String,
    pub op: OpKind,
    pub role: crate::trace::Role,
    pub shape: Vec<usize>,
    pub dtype: crate::config::DType,
    pub axes: Vec<crate::shape::Axis>,
    pub inputs: Vec<String>,
    pub formula: String,
    pub on_stream: bool,
    pub sources: Vec<AxisSource>,
    pub why: crate::why::Why,
}

/// Why a step failed: the check, its detail line, the operands and, for
/// a residual add, both operands judged.
pub(super) type Why = (
    CheckName,
    crate::why::Why,
    Vec<Operand>,
    Option<ResidualCheck>,
);

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
                path: e.path.clone(),
                shape: e.shape.clone(),
                dtype: e.dtype,
            }]
        });
        let (path, op, shape, axes, dtype, role) = (
            e.path.clone(),
            e.op,
            e.shape.clone(),
            e.axes.clone(),
            e.dtype,
            e.role,
        );
        self.note(e, summary, operands)?;
        if self.watch.capture
            && let Some(values) = self.backend.values(&t)
        {
            self.captures.push(Capture {
                path: path.clone(),
                op,
                role,
                shape: shape.clone(),
                axes: axes.clone(),
                values,
            });
        }
        Ok(Val::new(path, shape, axes, dtype, t).as_role(role))
    }

    /// Records an event, or the failure of its stream or finiteness judge.
    pub(super) fn note(
        &mut self,
        e: Pending,
        summary: Option<(Stats, Option<Vec<f64>>)>,
        operands: Vec<Operand>,
    ) -> Result<(), Stop> {
        // A dtype departure (the f32 inside a 16-bit model's norm) is
        // marked as a shape departure is.
        let departs = e.shape != self.stream || e.dtype != self.dtype;
        let leaves_dtype = (e.shape == self.stream && e.dtype != self.dtype).then_some(self.dtype);
        let returns = !departs && self.events.last().is_some_and(|e| e.departs);
        let (stats, preview) = summary.map_or((None, None), |(s, p)| (Some(s), p));
        let judged = if e.on_stream {
            judge::stream(&e.path, (&e.shape, e.dtype), (&self.stream, self.dtype))
                .map_err(|d| (CheckName::Stream, d))
        } else {
            Ok(())
        }
        .and_then(|()| judge::finite(&e.path, stats.as_ref()).map_err(|d| (CheckName::Finite, d)));
        if let Err((check, detail)) = judged {
            return Err(self.fail(&e.path, e.op, (check, detail, operands, None)));
        }
        self.events.push(Event {
            step: self.events.len(),
            path: e.path,
            op: e.op,
            op_name: None,
            role: e.role,
            shape: e.shape,
            axes: e.axes,
            dtype: e.dtype,
            on_stream: e.on_stream,
            departs,
            leaves_dtype,
            returns,
            inputs: e.inputs,
            formula: e.formula,
            stats,
            check: None,
            // A router's weights are kept always: `routing` judges their sums.
            values: preview.filter(|_| self.watch.values || e.op == OpKind::RouteWeights),
            sources: e.sources,
            why_text: e.why.text(),
            why: Some(e.why),
            line: None,
            operands: None,
            args: None,
            replaces_stream: None,
            replaced_at: None,
            pre_mask: false,
        });
        if let Some(tell) = &self.watch.hooks.progress {
            tell(Progress {
                done: self.events.len(),
                expected: self.watch.expected.max(self.events.len()),
            });
        }
        Ok(())
    }

    /// Keeps the failure of step `path` of `op` and stops the forward.
    pub(super) fn fail(&mut self, path: &str, op: OpKind, why: Why) -> Stop {
        let (check, detail, operands, residual) = why;
        let named: Vec<(&str, &[usize], crate::config::DType)> = operands
            .iter()
            .map(|o| (o.path.as_str(), o.shape.as_slice(), o.dtype))
            .collect();
        let stream = (self.stream.as_slice(), self.dtype);
        let why = crate::why::failure(check.as_str(), op, path, &named, stream);
        self.failure = Some(Failure {
            why_text: why.text(),
            why: Some(why),
            step: self.events.len(),
            path: path.to_string(),
            op,
            check,
            detail: detail.text(),
            detail_why: crate::trace::Aside(Some(detail)),
            operands,
            residual,
        });
        Stop
    }
}
