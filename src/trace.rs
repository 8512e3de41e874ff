//! The trace: one [`Event`] per intermediate tensor, in execution order.
//!
//! This is the public contract that the UI, the checks and users' tests
//! read. [`recorder::Recorder`] builds it while the model runs, asking
//! [`judge`] of every step; [`log`] writes and reads it as JSON Lines.

pub mod hooks;
pub mod judge;
pub mod log;
pub mod recorder;
pub mod role;
pub mod verdict;

use crate::arch::Anatomy;
use crate::config::{DType, ModelConfig};
pub use crate::ops::OpKind;
use crate::ops::Stats;
use crate::shape::{Axis, Shape, fmt_shape};
use crate::why::{AxisSource, Why};
pub use role::Role;
use serde::{Deserialize, Serialize};
pub use verdict::{CheckName, CheckResult, Status};

/// The block number in a path or parameter name (`block2.attn.q` → 2,
/// `decode1.block2.attn.q` → 2).
#[must_use]
pub fn block_of(path: &str) -> Option<usize> {
    // A gradient belongs where its tensor does: `grad.block1.mlp.up`.
    let path = path.strip_prefix("grad.").unwrap_or(path);
    within_pass(path)
        .strip_prefix("block")?
        .split('.')
        .next()?
        .parse()
        .ok()
}

/// The pass of generation a path belongs to: `prefill`, `decode1` …;
/// `None` for a run that does not decode.
#[must_use]
pub fn pass_of(path: &str) -> Option<&str> {
    let first = path.split('.').next()?;
    let step = first
        .strip_prefix("decode")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    (first == "prefill" || step).then_some(first)
}

/// The path inside its pass: `decode1.block2.attn.q` → `block2.attn.q`;
/// the path itself outside generation.
#[must_use]
pub fn within_pass(path: &str) -> &str {
    match pass_of(path) {
        Some(pass) => path.get(pass.len() + 1..).unwrap_or(""),
        None => path,
    }
}

/// Whether the run computed values or only shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Every op ran on ndarray values: events carry stats (and values when asked).
    Numeric,
    /// Every op computed only its output shape: events carry no stats or values.
    ShapeOnly,
}

/// Both operands of a residual add, and whether the add is allowed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResidualCheck {
    /// The stream operand x, (B,T,d) when correct.
    pub stream: Shape,
    /// The sublayer output f(x), (B,T,d) when correct.
    pub update: Shape,
    /// The stream operand's element type; the model's dtype when correct.
    pub stream_dtype: DType,
    /// The update's element type; the model's dtype when correct.
    pub update_dtype: DType,
    /// Whether both operands are the stream shape (B,T,d) in the model's
    /// dtype, i.e. whether the add may run.
    pub ok: bool,
}

impl ResidualCheck {
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
    pub op: OpKind,
    /// The recording program's own name for an op shapetrace has no name
    /// for (`op` is then `other`), e.g. `einsum`; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op_name: Option<String>,
    /// What the tensor is in the model (`scores`, `mlp-hidden`,
    /// `residual-add` …), which the checks and whys judge by; absent before
    /// schema 4, and then given on reading ([`role::infer`]).
    #[serde(default)]
    pub role: Role,
    /// Its size along each axis, e.g. `[2, 4, 4, 16]` for `block1.attn.q`.
    pub shape: Shape,
    /// Its axes, e.g. `["B","h","T","hd"]` in the log.
    pub axes: Vec<Axis>,
    /// The element type: the model's, f32 inside a 16-bit model's norm and
    /// softmax, i64 for the token ids.
    pub dtype: DType,
    /// A tensor at a sublayer interface: input, norm output, sublayer
    /// output or residual sum. Must be (B,T,d).
    pub on_stream: bool,
    /// Its shape differs from (B,T,d), or its dtype from the stream's.
    pub departs: bool,
    /// The stream's dtype, when this step keeps (B,T,d) but leaves that
    /// dtype (the f32 inside a bf16 model's norm): `◆ leaves bf16`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaves_dtype: Option<DType>,
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
    /// Where each output axis's size comes from, one per axis: `{"axis":
    /// "hd","size":16,"from":"d / heads = 64 / 4"}`. Empty in logs of
    /// schema 1.
    #[serde(default)]
    pub sources: Vec<AxisSource>,
    /// The why's catalog key and arguments; absent in logs of schema 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<Why>,
    /// The why in words (English); empty in logs of schema 1.
    #[serde(default)]
    pub why_text: String,
    /// Where in the recording program's own code the op ran, e.g.
    /// `stud.py:19`; absent from shapetrace's own logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// The shape of every tensor operand, in the op's order (activations,
    /// parameters, constants), e.g. `[[2,4,64],[192,64],[192]]` for a
    /// torch linear; absent from shapetrace's own logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operands: Option<Vec<Shape>>,
    /// The op's other arguments as the recording program gave them:
    /// `{"dims":[1,2]}`, `{"dim":-1}`, `{"equation":"bhtd,bhsd->bhts"}`,
    /// `{"shape":[2,4,4,16]}`; absent from shapetrace's own logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<serde_json::Map<String, serde_json::Value>>,
    /// On a block sublayer's output that the block used in place of its
    /// stream (`x = self.attn(self.ln_1(x))`): the sublayer's module path,
    /// e.g. `block1.attn`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces_stream: Option<String>,
    /// Beside `replaces_stream`: the line in the block's own forward that
    /// called that sublayer (`stud.py:68`, `x = self.attn(self.ln_1(x))`),
    /// where `line` is the sublayer's last op inside it; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaced_at: Option<String>,
    /// Attention scores computed before any mask or softmax: the
    /// causality judge skips them, as it skips shapetrace's own `scores`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pre_mask: bool,
}

impl Event {
    /// The block number of this event (`block2.…` → 2), if inside a block.
    #[must_use]
    pub fn block(&self) -> Option<usize> {
        block_of(&self.path)
    }

    /// Its shape with the axes' names, `(B=2,h=4,T=4,hd=16)`.
    #[must_use]
    pub fn named_shape(&self) -> String {
        crate::shape::named(&self.shape, &self.axes)
    }

    /// Why this step has its shape, in words; empty for a log of schema 1.
    #[must_use]
    pub fn why_text(&self) -> &str {
        &self.why_text
    }

    /// The op's name: ours, or the recording program's for an op we
    /// have no name for (`einsum`).
    #[must_use]
    pub fn op_label(&self) -> &str {
        self.op_name.as_deref().unwrap_or(self.op.as_str())
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
    /// The activation's event path (`block1.mlp.act`) or the parameter's
    /// name (`block1.mlp.up.bias`).
    pub path: String,
    /// Its shape as handed to the op, e.g. `[2, 4, 256]`.
    pub shape: Shape,
    /// Its element type: an activation's own, a parameter's the model's.
    pub dtype: DType,
}

/// The step where the forward stopped, and the check that stopped it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// The step index the failed tensor would have had.
    pub step: usize,
    /// Path the failed tensor would have had, e.g. `block1.resid_2`.
    pub path: String,
    /// The op that refused, e.g. `add` for a residual add.
    pub op: OpKind,
    /// The check that stopped the forward: `op-shapes`, `residual`, `stream`
    /// or `finite`.
    pub check: CheckName,
    /// One line naming the bad shapes, e.g. `residual add (2,4,64) +
    /// (2,4,256): both operands must be (2,4,64)`.
    pub detail: String,
    /// Every operand of the failed step, activations and parameters, in the
    /// op's order.
    pub operands: Vec<Operand>,
    /// Present when a residual add failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub residual: Option<ResidualCheck>,
    /// What went wrong, as a catalog key and arguments; absent in logs of
    /// schema 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<Why>,
    /// What went wrong, in words (English); empty in logs of schema 1.
    #[serde(default)]
    pub why_text: String,
    /// The detail as a catalog message (its English is `detail`), for the
    /// stepper's other languages; not in the log, and not compared.
    #[serde(skip)]
    pub detail_why: Aside<Why>,
}

/// A value kept beside a type's data: never compared, so two values that
/// differ only in it are equal (a replayed log has none).
#[derive(Debug, Clone)]
pub struct Aside<T>(pub Option<T>);

impl<T> Default for Aside<T> {
    fn default() -> Self {
        Self(None)
    }
}

impl<T> PartialEq for Aside<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Failure {
    /// What went wrong, in words; empty for a log of schema 1.
    #[must_use]
    pub fn why_text(&self) -> &str {
        &self.why_text
    }
}

/// A whole run: config, events and, if the forward stopped, why.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// The model that ran (its fault included), as configured or read from a
    /// log's header.
    pub config: ModelConfig,
    /// Whether values were computed or only shapes.
    pub mode: Mode,
    /// (B, T, d_model).
    pub stream_shape: Shape,
    /// The block the model ran: its sublayers, norms, mask and wiring.
    pub anatomy: Anatomy,
    /// Every recorded step in execution order; up to the failure if the
    /// forward stopped.
    pub events: Vec<Event>,
    /// Where and why the forward stopped; `None` when every step ran.
    pub failure: Option<Failure>,
    /// What the model read that its checkpoint lacked, drawn from the
    /// seed under `--fill-missing seeded`: the file's name and shape for
    /// each, e.g. `embeddings.token_type_embeddings.weight (2,64)`. Empty
    /// for a seeded model, or one every weight of which is the file's.
    pub seeded: Vec<String>,
}

impl Trace {
    /// How many steps the trace has: every recorded event, the input (step
    /// 0) among them, so its steps are numbered 0 to `step_count() - 1`; a
    /// failure's row, the step that could not run, is not one. Every
    /// surface that says how many steps there are counts this: the
    /// presenter and autoplay (`step 8 of 37`) and the HTML handout (`37
    /// steps`).
    #[must_use]
    pub fn step_count(&self) -> usize {
        self.events.len()
    }

    /// Events whose shape departs from (B,T,d), or whose dtype from the stream's.
    pub fn departures(&self) -> impl Iterator<Item = &Event> {
        self.events.iter().filter(|e| e.departs)
    }

    /// The residual adds, in order.
    pub fn residual_adds(&self) -> impl Iterator<Item = &Event> {
        self.events.iter().filter(|e| e.is_residual())
    }

    /// The stream shape `e` was recorded against: (B, T, d), or under
    /// sequence parallelism one device's positions, (B, T/N, d), for a
    /// tensor whose T axis is the device's part (`T/N`); under expert
    /// parallelism one device's sequences, (B/N, T, d).
    #[must_use]
    pub fn stream_for(&self, e: &Event) -> Shape {
        let d = self.config.devices;
        let part = |axis: usize, of: Axis, n: usize| {
            matches!(e.axes.get(axis), Some(Axis::Fraction { of: o, by })
                if **o == of && *by == n)
        };
        let mut s = self.stream_shape.clone();
        if d.sp && d.split() && part(1, Axis::Seq, d.tp) {
            s[1] /= d.tp;
        }
        // Expert parallelism: the device's B/N sequences.
        if d.experts_split() && part(0, Axis::Batch, d.ep) {
            s[0] /= d.ep;
        }
        s
    }

    /// The event at `path`.
    #[must_use]
    pub fn get(&self, path: &str) -> Option<&Event> {
        self.events.iter().find(|e| e.path == path)
    }

    /// Which keys each query of block `n`'s attention read: the anatomy's
    /// causal mask, within the config's sliding window if it has one, and
    /// with none on the blocks the config lets attend fully (`full_every`,
    /// Gemma 2's every other block).
    #[must_use]
    pub fn masking_at(&self, n: usize) -> crate::ops::Masking {
        self.anatomy.masking(self.config.window_at(n))
    }

    /// How many residual adds a complete run makes: one per sublayer, or
    /// one per block for parallel residuals (the anatomy declares which),
    /// of every block this device holds (a pipeline stage's), in every
    /// pass of a run that decodes.
    #[must_use]
    pub fn expected_residual_adds(&self) -> usize {
        // A replayed log's header is not validated: no overflow, no
        // division by a 0.
        let blocks = self.config.layers / self.config.devices.pp.max(1);
        self.anatomy
            .adds_per_block()
            .saturating_mul(blocks)
            .saturating_mul(self.config.decode.saturating_add(1))
    }
}
