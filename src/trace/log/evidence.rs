//! The evidence lines of another program's log: one per probe run, the
//! rows each moved token changed, which `check --log` judges with the
//! same code that judges shapetrace's own probes.
//!
//! ```text
//! {"kind":"evidence","probe":"causality","module":null,"token":2,
//!  "rows":[{"path":"block1.attn.view_3","op":"view","pre_mask":false,"batch":2,"seq":4,"delta":[0,0,0.31,0,0,0,0,0]}]}
//! {"kind":"evidence","probe":"causality","module":null,"skipped":"the probe's forward raised …"}
//! ```

use serde::{Deserialize, Serialize};

/// Which probe an evidence line is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Probe {
    /// The whole model re-run with token `token` of batch 0 moved.
    Causality,
    /// One module (a norm, an MLP) run alone on the input it got, with
    /// row `token` of batch 0 moved.
    Positionwise,
}

impl Probe {
    /// `causality` or `positionwise`, as the log writes it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Probe::Causality => "causality",
            Probe::Positionwise => "positionwise",
        }
    }
}

/// One tensor's changed rows in a probe run, as the log recorded them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceRow {
    /// The event path of the tensor, e.g. `block1.attn.view_3`.
    pub path: String,
    /// The op that produced it, as the log names it (`view`, `softmax`).
    pub op: String,
    /// Attention scores before any mask: not judged by causality.
    #[serde(default)]
    pub pre_mask: bool,
    /// Batch elements, B.
    pub batch: usize,
    /// Positions along the tensor's T axis (T or Tq).
    pub seq: usize,
    /// Row-major (batch, position), `batch * seq` numbers: the largest
    /// |Δ| of each row, 0 where it did not change.
    pub delta: Vec<f64>,
}

/// One probe run of the log's writer: `{"kind":"evidence", …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// Which probe ran.
    pub probe: Probe,
    /// For positionwise, the module run alone (`block1.mlp`); `None` for
    /// causality, which re-ran the whole model.
    #[serde(default)]
    pub module: Option<String>,
    /// The moved position (of batch element 0); `None` when the probe
    /// could not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<usize>,
    /// The tensors whose output changed, in execution order.
    #[serde(default)]
    pub rows: Vec<EvidenceRow>,
    /// Why the probe could not run, when it could not: then no token and
    /// no rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// An evidence line as read, before it is checked: its numbers signed,
/// so that a negative one is refused by its value.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEvidence {
    probe: String,
    #[serde(default)]
    module: Option<String>,
    #[serde(default)]
    token: Option<i64>,
    #[serde(default)]
    rows: Option<Vec<RawRow>>,
    #[serde(default)]
    skipped: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRow {
    path: String,
    op: String,
    #[serde(default)]
    pre_mask: bool,
    batch: i64,
    seq: i64,
    delta: Vec<f64>,
}

/// A count that must not be negative, or the refusal naming it.
fn count(what: &str, n: i64) -> Result<usize, String> {
    usize::try_from(n).map_err(|_| format!("evidence {what} {n} is negative; allowed: 0 or more"))
}

impl RawEvidence {
    /// The evidence line, checked: a known probe, a token within the
    /// sequence of `seq`, each row `batch * seq` deltas that are not
    /// negative, and printable names. `values` counts the deltas kept.
    pub(super) fn checked(self, seq: usize, values: &mut usize) -> Result<Evidence, String> {
        let probe = match self.probe.as_str() {
            "causality" => Probe::Causality,
            "positionwise" => Probe::Positionwise,
            other => {
                return Err(format!(
                    "unknown probe '{}'; allowed: causality, positionwise",
                    crate::text::shown(other)
                ));
            }
        };
        let names = self
            .module
            .iter()
            .chain(&self.skipped)
            .chain(self.rows.iter().flatten().flat_map(|r| [&r.path, &r.op]));
        super::read::lines::printable(names.map(String::as_str))?;
        if let Some(why) = self.skipped {
            if self.token.is_some() || self.rows.is_some() {
                return Err(
                    "a skipped probe with a token or rows; allowed: skipped alone, or token and rows"
                        .into(),
                );
            }
            return Ok(Evidence {
                probe,
                module: self.module,
                token: None,
                rows: Vec::new(),
                skipped: Some(why),
            });
        }
        let (Some(token), Some(rows)) = (self.token, self.rows) else {
            return Err(
                "evidence without its token and rows; allowed: token and rows, or skipped".into(),
            );
        };
        let token = count("token", token)?;
        if token >= seq {
            return Err(format!(
                "evidence token {token} is outside the sequence; allowed: 0 to {}",
                seq.saturating_sub(1)
            ));
        }
        if probe == Probe::Positionwise && self.module.is_none() {
            return Err(
                "positionwise evidence names no module; allowed: the module run alone".into(),
            );
        }
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let (batch, seq) = (count("batch", r.batch)?, count("seq", r.seq)?);
            let want = batch.checked_mul(seq);
            if want != Some(r.delta.len()) {
                return Err(format!(
                    "evidence row {} has {} deltas for batch {batch} × seq {seq}; allowed: batch × seq",
                    crate::text::shown(&r.path),
                    r.delta.len()
                ));
            }
            if let Some(d) = r.delta.iter().find(|d| **d < 0.0) {
                return Err(format!(
                    "evidence row {} has delta {d}; allowed: 0 or more (a largest |Δ|)",
                    crate::text::shown(&r.path)
                ));
            }
            *values += r.delta.len();
            out.push(EvidenceRow {
                path: r.path,
                op: r.op,
                pre_mask: r.pre_mask,
                batch,
                seq,
                delta: r.delta,
            });
        }
        Ok(Evidence {
            probe,
            module: self.module,
            token: Some(token),
            rows: out,
            skipped: None,
        })
    }
}
