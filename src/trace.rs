//! The trace: one [`Event`] per intermediate tensor, in execution order.
//!
//! This is the public contract that the UI, the checks and users' tests
//! read. [`recorder::Recorder`] builds it while the model runs; [`log`]
//! writes and reads it as JSON Lines; [`table`] prints it for people.

pub mod log;
pub mod recorder;
pub mod table;

use crate::config::names::named_enum;
use crate::config::{DType, ModelConfig};
use crate::ops::{Shape, Stats, fmt_shape};
use serde::{Deserialize, Serialize};

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
        /// Every value is finite.
        Finite = "finite",
        /// The built model has the parameter count of the closed-form
        /// formula of its declared architecture.
        Params = "params",
        /// MLPs and norms act on each token alone.
        Positionwise = "positionwise",
        /// No output depends on a later token or another batch element.
        Causality = "causality",
    }
}

/// The block number in a path or parameter name (`block2.attn.q` → 2).
#[must_use]
pub fn block_of(path: &str) -> Option<usize> {
    path.strip_prefix("block")?.split('.').next()?.parse().ok()
}

/// Whether the run computed values or only shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    Numeric,
    ShapeOnly,
}

/// Both operands of a residual add, and whether the add is allowed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResidualCheck {
    /// The stream operand x, (B,T,d) when correct.
    pub stream: Shape,
    /// The sublayer output f(x), (B,T,d) when correct.
    pub update: Shape,
    pub stream_dtype: DType,
    pub update_dtype: DType,
    pub ok: bool,
}

impl ResidualCheck {
    /// Judges `stream + update` against the stream shape and input dtype.
    #[must_use]
    pub fn judge(
        stream: (&[usize], DType),
        update: (&[usize], DType),
        expect: (&[usize], DType),
    ) -> Self {
        let ok = stream.0 == expect.0
            && update.0 == expect.0
            && stream.1 == expect.1
            && update.1 == expect.1;
        Self {
            stream: stream.0.to_vec(),
            update: update.0.to_vec(),
            stream_dtype: stream.1,
            update_dtype: update.1,
            ok,
        }
    }

    /// `(2,4,64) + (2,4,64)`.
    #[must_use]
    pub fn operands(&self) -> String {
        format!("{} + {}", fmt_shape(&self.stream), fmt_shape(&self.update))
    }
}

/// One intermediate tensor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Position in execution order, from 0.
    pub step: usize,
    /// Canonical path, e.g. `block1.attn.scores`.
    pub path: String,
    /// The op that produced it, e.g. `scores`.
    pub op: String,
    pub shape: Shape,
    /// Axis names, e.g. `["B","h","T","hd"]`.
    pub axes: Vec<String>,
    pub dtype: DType,
    /// A tensor at a sublayer interface: input, norm output, sublayer
    /// output or residual sum. Must be (B,T,d).
    pub on_stream: bool,
    /// Its shape differs from (B,T,d).
    pub departs: bool,
    /// It is back at (B,T,d) right after a departure.
    pub returns: bool,
    /// Paths of the activations it was computed from.
    pub inputs: Vec<String>,
    /// The op with its shape arithmetic.
    pub formula: String,
    /// Summary statistics; `None` in shape-only mode.
    pub stats: Option<Stats>,
    /// Present on residual adds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<ResidualCheck>,
    /// Row-major values, for tensors of at most 4096 values when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<f64>>,
}

impl Event {
    /// The block number of this event (`block2.…` → 2), if inside a block.
    #[must_use]
    pub fn block(&self) -> Option<usize> {
        block_of(&self.path)
    }

    /// Whether this event is a residual add.
    #[must_use]
    pub fn is_residual(&self) -> bool {
        self.check.is_some()
    }
}

/// An operand of the step that failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Operand {
    pub path: String,
    pub shape: Shape,
    pub dtype: DType,
}

/// The step where the forward stopped, and the check that stopped it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// The step index the failed tensor would have had.
    pub step: usize,
    pub path: String,
    pub op: String,
    pub check: CheckName,
    pub detail: String,
    pub operands: Vec<Operand>,
    /// Present when a residual add failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub residual: Option<ResidualCheck>,
}

/// A whole run: config, events and, if the forward stopped, why.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    pub config: ModelConfig,
    pub mode: Mode,
    /// (B, T, d_model).
    pub stream_shape: Shape,
    pub events: Vec<Event>,
    pub failure: Option<Failure>,
}

impl Trace {
    /// Events whose shape departs from (B,T,d).
    pub fn departures(&self) -> impl Iterator<Item = &Event> {
        self.events.iter().filter(|e| e.departs)
    }

    /// The residual adds, in order.
    pub fn residual_adds(&self) -> impl Iterator<Item = &Event> {
        self.events.iter().filter(|e| e.is_residual())
    }

    /// The event at `path`.
    #[must_use]
    pub fn get(&self, path: &str) -> Option<&Event> {
        self.events.iter().find(|e| e.path == path)
    }

    /// How many residual adds a complete run of this config makes.
    #[must_use]
    pub fn expected_residual_adds(&self) -> usize {
        2 * self.config.layers
    }
}
