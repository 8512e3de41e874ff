//! The checks: each reads a finished [`Trace`] (the probes also re-run the
//! model on perturbed inputs) and gives a named verdict with a detail line.
//!
//! Checks that judge one step (`op-shapes`, `residual`, `stream`,
//! `finite`) also stopped the forward where they failed; the others judge
//! the whole run. `params` compares the built weights with the closed form.

pub mod contract;
pub mod influence;
pub mod params;
pub mod probe;

use crate::config::Fault;
use crate::trace::{CheckName, Trace};
use serde::{Deserialize, Serialize, Serializer};

/// A check's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    /// Not judged: no values (shape-only), or the forward stopped first.
    Skip,
}

impl Status {
    /// `pass`, `fail` or `skip`, as the trace log writes it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Fail => "fail",
            Self::Skip => "skip",
        }
    }
}

/// One check's verdict on a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckResult {
    pub name: CheckName,
    pub status: Status,
    /// Where it failed, if it did.
    pub path: Option<String>,
    pub detail: String,
}

impl CheckResult {
    /// Anything but a failure.
    #[must_use]
    pub fn ok(&self) -> bool {
        self.status != Status::Fail
    }

    pub(crate) fn pass(name: CheckName, detail: impl Into<String>) -> Self {
        Self {
            name,
            status: Status::Pass,
            path: None,
            detail: detail.into(),
        }
    }

    pub(crate) fn fail(name: CheckName, path: &str, detail: impl Into<String>) -> Self {
        Self {
            name,
            status: Status::Fail,
            path: Some(path.to_string()),
            detail: detail.into(),
        }
    }

    pub(crate) fn skip(name: CheckName, detail: impl Into<String>) -> Self {
        Self {
            name,
            status: Status::Skip,
            path: None,
            detail: detail.into(),
        }
    }
}

impl Serialize for CheckResult {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("CheckResult", 5)?;
        st.serialize_field("name", &self.name)?;
        st.serialize_field("ok", &self.ok())?;
        st.serialize_field("status", &self.status)?;
        st.serialize_field("path", &self.path)?;
        st.serialize_field("detail", &self.detail)?;
        st.end()
    }
}

/// Every check on `trace` of the seeded model: the contract checks,
/// `params`, then the probes.
#[must_use]
pub fn all(trace: &Trace) -> Vec<CheckResult> {
    all_of(trace, influence::Subject::seeded(&trace.config))
}

/// As [`all`], the probes re-running `subject` (the traced config with its
/// loaded weights or input, if the trace had them).
#[must_use]
pub fn all_of(trace: &Trace, subject: influence::Subject) -> Vec<CheckResult> {
    let mut out = contract::all(trace);
    out.push(params::params(trace));
    out.extend(probe::all(trace, subject));
    out
}

/// The checks that catch `fault` on a model where it shows.
#[must_use]
pub fn catches(fault: Fault) -> &'static [CheckName] {
    match fault {
        Fault::FfnNoDown | Fault::AttnNoMerge => &[CheckName::Residual],
        Fault::BiasW164 => &[CheckName::OpShapes],
        Fault::MergeNoTranspose | Fault::NoCausalMask => &[CheckName::Causality],
        Fault::SkipBlock1 => &[CheckName::Wiring],
        Fault::NormOverSeq => &[CheckName::Positionwise, CheckName::Causality],
        Fault::NoOutProj => &[CheckName::Params],
    }
}
