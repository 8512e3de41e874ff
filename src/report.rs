//! A run for people and programs: the trace with every check's verdict
//! ([`Run`]), the one-line headline over the verdicts, and the trace as a
//! table ([`table`]).

pub mod compare;
pub mod faults;
pub mod handout;
pub mod html;
mod sheet;
pub mod table;

use crate::check::influence::Subject;
use crate::check::{self, CheckResult, Status};
use crate::config::ModelConfig;
use crate::error::Error;
use crate::plan::{Plan, Request};
use crate::run::{Traced, trace_request};
use crate::trace::Trace;
use ndarray::ArrayD;

/// A trace and the checks' verdicts on it.
#[derive(Debug, Clone)]
pub struct Run {
    /// The recorded trace: every event, and the failure if the forward stopped.
    pub trace: Trace,
    /// Every check's verdict, one per check; skipped ones included.
    pub checks: Vec<CheckResult>,
    /// Numbers or shapes, and why.
    pub plan: Plan,
}

impl Run {
    /// Whether every check holds (skipped checks do not fail).
    #[must_use]
    pub fn ok(&self) -> bool {
        self.checks.iter().all(|c| c.ok)
    }
}

/// Traces `cfg` and runs every check, including the probes.
///
/// # Errors
/// [`Error::Config`] when `cfg` is invalid.
pub fn run(cfg: &ModelConfig) -> Result<Run, Error> {
    run_request(cfg, &Request::default())
}

/// As [`run`], with everything a [`Request`] can carry.
///
/// # Errors
/// As [`trace_request`].
pub fn run_request(cfg: &ModelConfig, req: &Request) -> Result<Run, Error> {
    Ok(trace_request(cfg, req)?.into_run(req).0)
}

impl Traced {
    /// The trace judged by every check (the probes re-running `req`'s
    /// weights and input), and the output values.
    #[must_use]
    pub fn into_run(self, req: &Request) -> (Run, Option<ArrayD<f32>>) {
        let checks = checks_for(&self.trace, req);
        let run = Run {
            trace: self.trace,
            checks,
            plan: self.plan,
        };
        (run, self.output)
    }
}

/// Every check on a trace made under `req`; the probes re-run the model
/// with the request's loaded weights and input, if it has them.
#[must_use]
pub fn checks_for(trace: &Trace, req: &Request) -> Vec<CheckResult> {
    check::all_of(trace, Subject::of(&trace.config, req))
}

/// The verdicts in one line: `all 9 checks hold`, `6 checks hold, 3
/// skipped` or `1 of 9 checks fail`. A skipped check judged nothing, so
/// it is counted apart from those that hold.
#[must_use]
pub fn headline(checks: &[CheckResult]) -> String {
    headline_in(checks, crate::i18n::Lang::En)
}

/// [`headline`] in `lang`.
#[must_use]
pub fn headline_in(checks: &[CheckResult], lang: crate::i18n::Lang) -> String {
    let count = |s: Status| checks.iter().filter(|c| c.status == s).count();
    let (failed, skipped) = (count(Status::Fail), count(Status::Skip));
    let held = checks.len() - failed - skipped;
    let key = match (failed, skipped) {
        (0, 0) => "cli-headline-hold",
        (0, _) => "cli-headline-hold-skipped",
        (_, 0) => "cli-headline-fail",
        (_, _) => "cli-headline-fail-skipped",
    };
    lang.why(
        &crate::why::Why::new(key)
            .arg("held", held.to_string())
            .arg("skipped", skipped.to_string())
            .arg("failed", failed.to_string())
            .arg("total", checks.len().to_string()),
    )
}
