//! What a check says of a run: its name, its status and a detail line.
//! The checks themselves live in `check`; the trace keeps their verdicts
//! (the log's summary, a replay), so the types live here.

use crate::config::names::named_enum;
use serde::{Deserialize, Serialize, Serializer};

named_enum! {
    /// The name of a contract check.
    CheckName, "check" {
        /// Every op accepted its operand shapes.
        OpShapes = "op-shapes",
        /// Every residual add has two (B,T,d) operands of the input dtype.
        Residual = "residual",
        /// Every stream tensor is (B,T,d).
        Stream = "stream",
        /// Every departure returns to (B,T,d) before its residual add.
        Returns = "returns",
        /// Each block reads the previous block's output.
        Wiring = "wiring",
        /// In a mixture of experts, every token's k routes reach an expert
        /// and come back, weighted by weights that sum to 1.
        Routing = "routing",
        /// Every value is finite.
        Finite = "finite",
        /// The built model has the parameter count of the closed-form
        /// formula of its declared architecture.
        Params = "params",
        /// MLPs and norms act on each token alone.
        Positionwise = "positionwise",
        /// No output depends on a later token or another batch element.
        Causality = "causality",
        /// Each block's output agrees with a plain f64 forward written
        /// apart from the fast backend (under a fault, with that of the
        /// architecture the config declares), on the same weights and input.
        Reference = "reference",
    }
}

/// A check's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The rule held on this run.
    Pass,
    /// The rule is broken; `path` names where.
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
///
/// `ok` is a field, as on [`crate::trace::ResidualCheck`] and in the JSON:
/// true unless the check failed (a skip is ok); `status` tells a pass from
/// a skip. The constructors keep the two in step.
#[derive(Debug, Clone)]
pub struct CheckResult {
    /// Which rule was judged.
    pub name: CheckName,
    /// Anything but a failure: `status != Status::Fail`.
    pub ok: bool,
    /// Pass, fail or skip.
    pub status: Status,
    /// Where it failed, if it did.
    pub path: Option<String>,
    /// One line on what was found, e.g. `4/4 residual adds are (2,4,64) +
    /// (2,4,64), f32`, or where and how it failed.
    pub detail: String,
    /// The detail as a catalog message (key and arguments), for the
    /// stepper's other languages; `None` for a detail that has no message
    /// yet and for a verdict read from a log. Not in the JSON, and not
    /// compared: `detail` is its English.
    pub why: Option<crate::why::Why>,
}

/// Two verdicts are equal when their name, status, path and detail are.
impl PartialEq for CheckResult {
    fn eq(&self, other: &Self) -> bool {
        (self.name, self.ok, self.status, &self.path, &self.detail)
            == (
                other.name,
                other.ok,
                other.status,
                &other.path,
                &other.detail,
            )
    }
}

impl Eq for CheckResult {}

impl CheckResult {
    /// A verdict of `status`; `ok` follows from it.
    #[must_use]
    pub fn new(
        name: CheckName,
        status: Status,
        path: Option<String>,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            name,
            ok: status != Status::Fail,
            status,
            path,
            detail: detail.into(),
            why: None,
        }
    }

    /// The same verdict with its detail from the catalog message `why`
    /// (in English; other languages render `why`).
    #[must_use]
    pub(crate) fn said(mut self, why: crate::why::Why) -> Self {
        self.detail = why.text();
        self.why = Some(why);
        self
    }

    /// The same verdict, its English detail kept, with the catalog
    /// message `why` beside it (whose English is that detail).
    #[must_use]
    pub(crate) fn with(mut self, why: crate::why::Why) -> Self {
        self.why = Some(why);
        self
    }

    pub(crate) fn pass(name: CheckName, detail: impl Into<String>) -> Self {
        Self::new(name, Status::Pass, None, detail)
    }

    pub(crate) fn fail(name: CheckName, path: &str, detail: impl Into<String>) -> Self {
        Self::new(name, Status::Fail, Some(path.to_string()), detail)
    }

    pub(crate) fn skip(name: CheckName, detail: impl Into<String>) -> Self {
        Self::new(name, Status::Skip, None, detail)
    }
}

impl Serialize for CheckResult {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("CheckResult", 5)?;
        st.serialize_field("name", &self.name)?;
        st.serialize_field("ok", &self.ok)?;
        st.serialize_field("status", &self.status)?;
        st.serialize_field("path", &self.path)?;
        st.serialize_field("detail", &self.detail)?;
        st.end()
    }
}
