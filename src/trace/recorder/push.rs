//! Recording one event: its stats and preview, the stream and finiteness
//! checks, progress, and the failure that stops the forward.

use super::{Capture, In, Recorder, Stop, Val};
use crate::ops::{Backend, fmt_shape};
use crate::plan::Progress;
use crate::trace::{CheckName, Event, Failure, Operand, ResidualCheck};

impl<B: Backend> Recorder<'_, B> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn push(
        &mut self,
        path: &str,
        op: &str,
        t: B::Tensor,
        axes: Vec<String>,
        inputs: Vec<String>,
        formula: String,
        on_stream: bool,
        operands: Option<Vec<Operand>>,
    ) -> Result<Val<B::Tensor>, Stop> {
        let shape = B::shape(&t).to_vec();
        let departs = shape != self.stream;
        let returns = !departs && self.events.last().is_some_and(|e| e.departs);
        let summary = self.backend.summary(&t);
        let finite = summary.as_ref().is_none_or(|(s, _)| s.finite);
        let (stats, preview) = summary.map_or((None, None), |(s, p)| (Some(s), p));
        let failed = if on_stream && departs {
            let detail = format!(
                "stream tensor {path} is {}, not {}",
                fmt_shape(&shape),
                fmt_shape(&self.stream)
            );
            Some((CheckName::Stream, detail))
        } else if !finite {
            let detail = format!("{path} holds non-finite values (NaN or ±inf)");
            Some((CheckName::Finite, detail))
        } else {
            None
        };
        if let Some((check, detail)) = failed {
            let own = Val {
                path: path.to_string(),
                t,
                axes,
            };
            let operands = operands.unwrap_or_else(|| self.operands(&[In::Act(&own)]));
            return Err(self.fail(path, op, check, detail, operands, None));
        }
        if self.watch.capture
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
            values: preview.filter(|_| self.watch.values),
        });
        if let Some(tell) = &self.watch.hooks.progress {
            tell(Progress {
                done: self.events.len(),
                expected: self.watch.expected.max(self.events.len()),
            });
        }
        Ok(Val {
            path: path.to_string(),
            t,
            axes,
        })
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
