//! Which rows of each tensor change when one input row changes: the data
//! behind the `positionwise` and `causality` probes and the Probes lab.
//!
//! - [`Kind::Causality`]: token t of batch element 0 of x0 moves by N(0, 1)
//!   noise and the whole model runs again.
//! - [`Kind::Positionwise`]: each norm and MLP runs alone on a random
//!   (B, T, d) input, before and after row t of batch 0 moves.

use crate::arch::NormAt;
use crate::config::{DType, ModelConfig};
use crate::model::block::Layer;
use crate::model::{self, Model, Source};
use crate::ops::Backend;
use crate::ops::Masking;
use crate::ops::OpKind;
use crate::ops::numeric::{Numeric, Scalar, Tensor};
use crate::plan::Request;
use crate::seed::seed_for;
use crate::shape::Axis;
use crate::trace::recorder::{Capture, Recorder, Stop, Val, Watch};
use crate::trace::{CheckName, Role};
use crate::weights::Weights;
use ndarray::{ArrayD, s};

mod grid;
pub use grid::Cell;

/// Largest model the probes re-run, in bytes of a numeric run.
pub const PROBE_MAX_BYTES: u128 = 256 << 20;

/// What the probes re-run: a config with its weights, seeded or loaded,
/// and for causality its input x0, seeded or given (B, T, d_model).
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    /// The model to re-run, with its fault if any.
    pub cfg: &'a ModelConfig,
    /// Its weights: seeded from `cfg.seed` or loaded from a checkpoint.
    pub source: Source<'a>,
    /// The input x0, (B, T, d_model), when given; else drawn from the seed.
    pub input: Option<&'a ArrayD<f32>>,
    /// The token ids (B, T) a language model starts from, when given; else
    /// drawn from the seed.
    pub tokens: Option<&'a ndarray::Array2<i64>>,
}

impl<'a> Subject<'a> {
    /// `cfg` with `weights` if loaded (else seeded) and `input` if given.
    #[must_use]
    pub fn new(
        cfg: &'a ModelConfig,
        weights: Option<&'a Weights>,
        input: Option<&'a ArrayD<f32>>,
    ) -> Self {
        Self {
            cfg,
            source: weights.map_or(Source::Seeded, Source::Loaded),
            input,
            tokens: None,
        }
    }

    /// What the probes re-run for a trace of `cfg` under `req`: its
    /// loaded weights and input, or the seeded ones.
    #[must_use]
    pub fn of(cfg: &'a ModelConfig, req: &'a Request) -> Self {
        Self {
            tokens: req.tokens.as_deref(),
            ..Self::new(cfg, req.weights.as_deref(), req.input.as_deref())
        }
    }

    /// The seeded weights on the seeded input.
    #[must_use]
    pub fn seeded(cfg: &'a ModelConfig) -> Self {
        Self {
            cfg,
            source: Source::Seeded,
            input: None,
            tokens: None,
        }
    }
}

/// Which probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Move one token of the input and run the whole model: nothing may
    /// change at an earlier position or in another batch element.
    Causality,
    /// Move one row of a norm's or MLP's own input: only that row of its
    /// output may change.
    Positionwise,
}

/// One tensor's rows: the largest |Δ| per (batch, position), 0 where the
/// row did not change.
#[derive(Debug, Clone, PartialEq)]
pub struct RowChange {
    /// The tensor's event path, e.g. `block1.attn.weights`.
    pub path: String,
    /// The op that produced it.
    pub op: OpKind,
    /// What the tensor is in the model: the probes judge and show rows by it.
    pub role: Role,
    /// Batch elements, B: the rows of `delta` per position.
    pub batch: usize,
    /// Positions along the token axis (T, or Tq of the scores and weights).
    pub seq: usize,
    /// Row-major (batch, position).
    pub delta: Vec<f64>,
    /// Attention weights only, from a model run: for each query of batch
    /// element 0, whether every head gave the moved token weight 0 in the
    /// run before the move (a mask hid it). A query that weighed it can
    /// still move by less than the probe tells (its scores shifted by one
    /// constant, which the softmax ignores): that is no missing row.
    /// `None` (a log's evidence): not known.
    pub unweighed: Option<Vec<bool>>,
}

impl RowChange {
    /// The changed rows as (batch, position, |Δ|).
    pub fn changed(&self) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        self.delta
            .iter()
            .enumerate()
            .filter(|(_, d)| **d > 0.0)
            .map(|(r, d)| (r / self.seq, r % self.seq, *d))
    }

    /// Whether row (`b`, `t`) changed.
    #[must_use]
    pub fn at(&self, b: usize, t: usize) -> bool {
        self.delta.get(b * self.seq + t).is_some_and(|d| *d > 0.0)
    }
}

/// Every tensor's changed rows after moving token `token`.
#[derive(Debug, Clone, PartialEq)]
pub struct Influence {
    /// Which probe ran.
    pub kind: Kind,
    /// The position of batch element 0 whose input row moved.
    pub token: usize,
    /// Every captured tensor's changed rows, in execution order.
    pub rows: Vec<RowChange>,
    /// For causality: the influence the declared attention allows in the
    /// first attention's weights; `None` for positionwise.
    pub pattern: Option<Pattern>,
}

/// The influence pattern the declared mask allows: moving token t changes
/// the first attention's weights exactly at the queries whose mask reads
/// key t: rows t.. under the causal mask, t ..= t + w − 1 within a
/// sliding window of w, every row in an encoder. Later blocks spread it
/// further, but never before t in a decoder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// The first attention's weights, e.g. `block1.attn.weights`.
    pub path: String,
    /// The mask the architecture declares (not the one a fault built).
    pub mask: Masking,
    /// The first attention's scores, before the mask: a query must change
    /// only if its scores did, clearly (else a masked key is no more
    /// visible than a key that barely moved).
    pub scores: Option<String>,
}

impl Pattern {
    /// The pattern of `trace`'s first attention weights under the mask
    /// `cfg` declares: the architecture's without its fault.
    #[must_use]
    pub fn of(trace: &crate::trace::Trace, cfg: &ModelConfig) -> Option<Pattern> {
        let declared = ModelConfig {
            fault: None,
            ..cfg.clone()
        };
        let mask = crate::arch::Arch::of(&declared)
            .anatomy
            .masking(cfg.window_at(1));
        let first = trace.events.iter().find(|e| e.op == OpKind::Softmax)?;
        let scores = trace.events.iter().find(|e| e.op == OpKind::Scores);
        Some(Pattern {
            path: first.path.clone(),
            mask,
            scores: scores.map(|e| e.path.clone()),
        })
    }
}

/// How far a query's scores must move (largest |Δ| of its row) for its
/// weights to be expected to change.
const KEY_MOVED: f64 = 1e-4;

impl Influence {
    /// Whether a change of row (`b`, `t`) of `r` breaks the probe: for
    /// causality, any change in another batch element, before the moved
    /// token where the declared mask is causal, or in the first attention's
    /// weights at a query whose mask does not read the moved token.
    #[must_use]
    pub fn forbids(&self, r: &RowChange, b: usize, t: usize) -> bool {
        match (self.kind, &self.pattern) {
            (Kind::Causality, Some(p)) => {
                b != 0
                    || (p.mask.masks() && t < self.token)
                    || (r.path == p.path && !p.mask.reads(t, self.token, r.seq, r.seq))
            }
            _ => self.kind.forbids(self.token, b, t),
        }
    }

    /// Whether row (`b`, `t`) of `r` should have changed and did not: a
    /// query of the first attention whose mask reads the moved token among
    /// at least two keys (a row of one key weighs it 1, moved or not),
    /// when that query's scores changed clearly (a model may map both
    /// inputs to nearly one key: a LayerNorm over d 2 gives ±1 either way).
    #[must_use]
    pub fn misses(&self, r: &RowChange, b: usize, t: usize) -> bool {
        self.kind == Kind::Causality
            && self.pattern.as_ref().is_some_and(|p| {
                // Its scores moved clearly: scores that moved by rounding
                // alone move the weights by less than the probe can tell.
                let key_moved = p.scores.as_ref().is_none_or(|k| {
                    self.rows
                        .iter()
                        .find(|x| &x.path == k)
                        .is_none_or(|x| x.delta.get(t).is_some_and(|d| *d > KEY_MOVED))
                });
                let unweighed = r
                    .unweighed
                    .as_ref()
                    .is_none_or(|u| u.get(t).copied().unwrap_or(true));
                r.path == p.path
                    && b == 0
                    && key_moved
                    && unweighed
                    && p.mask.reads(t, self.token, r.seq, r.seq)
                    && p.mask.keys(t, r.seq, r.seq).len() >= 2
                    && !r.at(b, t)
            })
    }
}

impl Kind {
    /// The check this probe decides.
    #[must_use]
    pub fn check(self) -> CheckName {
        match self {
            Kind::Causality => CheckName::Causality,
            Kind::Positionwise => CheckName::Positionwise,
        }
    }

    /// The check's name, `causality` or `positionwise`.
    #[must_use]
    pub fn name(self) -> &'static str {
        self.check().as_str()
    }

    /// Whether a change at (`b`, `t`) breaks this probe when token `token`
    /// of batch 0 moved.
    #[must_use]
    pub fn forbids(self, token: usize, b: usize, t: usize) -> bool {
        match self {
            Kind::Causality => b != 0 || t < token,
            Kind::Positionwise => (b, t) != (0, token),
        }
    }

    /// Whether the probe judges row `r`: every tensor, but for causality
    /// the pre-mask scores, which are compared after the mask, as weights.
    #[must_use]
    pub fn judges(self, r: &RowChange) -> bool {
        match self {
            Kind::Causality => !pre_mask(r),
            Kind::Positionwise => true,
        }
    }

    /// Whether `r` is a row worth showing: for causality the sublayer
    /// interfaces (the input, each norm's output, each residual add, where
    /// a leak enters the stream) and the attention's weights and merged
    /// heads; for positionwise every tensor but the pre-mask scores.
    #[must_use]
    pub fn shows(self, r: &RowChange) -> bool {
        match self {
            Kind::Causality => match r.role {
                // A 16-bit norm's casts are its own: one row a norm.
                Role::Norm => r.op != OpKind::Cast,
                role => matches!(
                    role,
                    Role::Input | Role::Weights | Role::MergedHeads | Role::ResidualAdd
                ),
            },
            Kind::Positionwise => !pre_mask(r),
        }
    }
}

/// The scores before the mask: q·kᵀ/√hd and what bends them before the
/// softmax (ALiBi, a soft cap, a 16-bit model's cast to f32), all
/// [`Role::Scores`]; the softmax masks them.
fn pre_mask(r: &RowChange) -> bool {
    r.role == Role::Scores
}

/// A change where the probe forbids one: in tensor `path`, row (`batch`,
/// `pos`) moved by up to `delta` when token `token` of batch 0 moved.
#[derive(Debug, Clone, PartialEq)]
pub struct Leak {
    /// The event path of the tensor that changed, e.g. `block1.attn.weights`.
    pub path: String,
    /// The position whose input row moved (in batch element 0).
    pub token: usize,
    /// The batch element of the changed row.
    pub batch: usize,
    /// The position of the changed row.
    pub pos: usize,
    /// The largest |Δ| in that row (∞ when a value became NaN); 0 when
    /// it is `missing`.
    pub delta: f64,
    /// The row did not change though the declared mask lets its query read
    /// the moved token: attention masked more than it declares.
    pub missing: bool,
}

impl Influence {
    /// The probe's verdict on this token: the first judged row that
    /// changed where the probe forbids it, if any. The `check` verdict,
    /// the `probes` command's exit code and the Probes tab all read this.
    #[must_use]
    pub fn first_leak(&self) -> Option<Leak> {
        self.rows
            .iter()
            .filter(|r| self.kind.judges(r))
            .find_map(|r| {
                let changed = r.changed().find(|&(b, t, _)| self.forbids(r, b, t));
                let missed = || {
                    (0..r.seq)
                        .find(|&t| self.misses(r, 0, t))
                        .map(|t| (0, t, 0.0))
                };
                let ((batch, pos, delta), missing) = match changed {
                    Some(c) => (c, false),
                    None => (missed()?, true),
                };
                Some(Leak {
                    path: r.path.clone(),
                    token: self.token,
                    batch,
                    pos,
                    delta,
                    missing,
                })
            })
    }
}

/// The tokens the probes move for a sequence of `seq`: all of them for
/// short sequences, else the first two, the middle one and the last.
#[must_use]
pub fn tokens(seq: usize) -> Vec<usize> {
    if seq <= 16 {
        (0..seq).collect()
    } else {
        vec![0, 1, seq / 2, seq - 1]
    }
}

/// The run to show of `runs` (one per moved token, of a sequence of
/// `seq`): the first whose move leaks, else the middle token's, else the
/// first. The `probes` command prints it and the Probes tab opens on it.
#[must_use]
pub fn opening(runs: Vec<Influence>, seq: usize) -> Option<Influence> {
    let at = runs
        .iter()
        .position(Influence::leaks)
        .or_else(|| runs.iter().position(|r| r.token == seq / 2))
        .unwrap_or(0);
    runs.into_iter().nth(at)
}

/// Moves each token of `tokens` in turn and reports what changed.
///
/// # Errors
/// Why the model cannot be re-run: the forward (or a sublayer run alone)
/// stops at a failed check.
pub fn influence(subject: Subject, kind: Kind, tokens: &[usize]) -> Result<Vec<Influence>, String> {
    influence_why(subject, kind, tokens).map_err(|w| w.text())
}

/// As [`influence`], why not as a catalog message.
///
/// # Errors
/// As [`influence`].
pub fn influence_why(
    subject: Subject,
    kind: Kind,
    tokens: &[usize],
) -> Result<Vec<Influence>, crate::why::Why> {
    // A split model computes what its one-device model does (the `shard`
    // check holds it to that): the probes move tokens through that one.
    let one;
    let subject = if subject.cfg.devices.many() {
        one = super::shard::one_device(subject.cfg);
        Subject {
            cfg: &one,
            ..subject
        }
    } else {
        subject
    };
    let cfg = subject.cfg;
    // A replayed log's model may be one the tool would not build.
    rerunnable_why(cfg)?;
    match (cfg.dtype, kind) {
        // f32 runs bf16 and f16 too, rounding each step's output.
        (DType::F64, Kind::Causality) => causal::<f64>(subject, tokens),
        (_, Kind::Causality) => causal::<f32>(subject, tokens),
        (DType::F64, Kind::Positionwise) => positionwise::<f64>(subject, tokens),
        (_, Kind::Positionwise) => positionwise::<f32>(subject, tokens),
    }
}

/// x with token `t` of batch element 0 moved by N(0, 1) noise.
fn perturb<F: Scalar>(cfg: &ModelConfig, x: &ArrayD<F>, t: usize) -> ArrayD<F> {
    let noise = Numeric::<F>::new()
        .normal(
            &[cfg.d_model],
            seed_for(cfg.seed, &format!("probe.token{t}")),
        )
        .into_array();
    let mut y = x.clone();
    let mut row = y.slice_mut(s![0, t, ..]);
    row += &noise;
    y
}

/// The row changes of every tensor the two runs share with a (batch,
/// position) row per token. An expert's batch (n_e, …) has none: its rows
/// are the tokens that chose it, as many as the data says, so it is
/// judged where it comes back onto the tokens, at the combine.
fn token_rows<'a>(
    base: &'a [Capture],
    moved: &'a [Capture],
) -> impl Iterator<Item = RowChange> + 'a {
    base.iter()
        .zip(moved)
        .filter(|(a, b)| {
            a.shape == b.shape
                && a.axes
                    .first()
                    .is_none_or(|x| !matches!(x.unbound(), Axis::Routed))
        })
        .map(|(a, b)| rows(a, b))
}

/// The largest change per (batch, position) row between two captures of
/// one tensor; a change counts when it exceeds 1e-6 relative.
fn rows(a: &Capture, b: &Capture) -> RowChange {
    // The token axis: T, or the queries' Tq of the scores and weights.
    let t_axis = a
        .axes
        .iter()
        .position(|x| matches!(x, Axis::Seq | Axis::Query))
        .unwrap_or(1);
    let stride = |axis: usize| a.shape[axis + 1..].iter().product::<usize>();
    let (sb, st) = (stride(0), stride(t_axis));
    let (nb, nt) = (a.shape[0], a.shape[t_axis]);
    let mut delta = vec![0.0_f64; nb * nt];
    for (i, (x, y)) in a.values.iter().zip(&b.values).enumerate() {
        let d = (x - y).abs();
        let r = (i / sb) % nb * nt + (i / st) % nt;
        if d.is_nan() {
            delta[r] = f64::INFINITY;
        } else if d > 1e-6 * (1.0 + x.abs()) {
            delta[r] = delta[r].max(d);
        }
    }
    RowChange {
        path: a.path.clone(),
        op: a.op,
        role: a.role,
        batch: nb,
        seq: nt,
        delta,
        unweighed: None,
    }
}

fn causal<F: Scalar>(
    subject: Subject,
    tokens: &[usize],
) -> Result<Vec<Influence>, crate::why::Why> {
    let (cfg, source) = (subject.cfg, subject.source);
    let x0 = match subject.input {
        Some(x) => x.mapv(|v| F::of(f64::from(v))),
        None => model::input(cfg, &Numeric::<F>::new()).into_array(),
    };
    let (trace, base) = crate::run::captured::<F>(cfg, source, x0.clone());
    if let Some(f) = &trace.failure {
        return Err(crate::why::Why::new("check-probe-stopped").arg("path", f.path.as_str()));
    }
    let pattern = Pattern::of(&trace, cfg);
    tokens
        .iter()
        .map(|&t| {
            let (moved_trace, moved) = crate::run::captured::<F>(cfg, source, perturb(cfg, &x0, t));
            if let Some(f) = moved_trace.failure {
                return Err(
                    crate::why::Why::new("check-probe-moved-stopped").arg("path", f.path.as_str())
                );
            }
            let mut rows: Vec<RowChange> = token_rows(&base, &moved).collect();
            for r in rows.iter_mut().filter(|r| r.role == Role::Weights) {
                r.unweighed = base
                    .iter()
                    .find(|c| c.path == r.path)
                    .map(|c| unweighed(c, t));
            }
            Ok(Influence {
                kind: Kind::Causality,
                token: t,
                rows,
                pattern: pattern.clone(),
            })
        })
        .collect()
}

/// For each query of batch element 0 of attention weights `c` (B, h, Tq,
/// Tk), whether every head gave key `token` weight 0.
fn unweighed(c: &Capture, token: usize) -> Vec<bool> {
    let [_, h, tq, tk] = c.shape[..] else {
        return Vec::new();
    };
    if token >= tk {
        return vec![true; tq];
    }
    (0..tq)
        .map(|t| (0..h).all(|head| c.values[(head * tq + t) * tk + token] == 0.0))
        .collect()
}

/// A position-wise part of a block, run alone: sublayer `sub`'s norm, or
/// its layer when that is the MLP.
#[derive(Clone, Copy)]
struct Part {
    block: usize,
    sub: usize,
    norm: bool,
}

/// The position-wise parts of `model`, in the order each block runs them.
fn parts<T>(model: &Model<T>) -> Vec<Part> {
    let mut out = Vec::new();
    for (block, b) in model.blocks.iter().enumerate() {
        for (sub, s) in b.sublayers.iter().enumerate() {
            // A shared norm is the first sublayer's ln_1, run once.
            let norm = (s.norm.is_some() || sub == 0).then_some(Part {
                block,
                sub,
                norm: true,
            });
            let layer = matches!(s.layer, Layer::Mlp(_) | Layer::Moe(_)).then_some(Part {
                block,
                sub,
                norm: false,
            });
            match s.anatomy.norm {
                NormAt::Before | NormAt::Sandwich => {
                    out.extend([norm, layer].into_iter().flatten());
                }
                NormAt::After => out.extend([layer, norm].into_iter().flatten()),
            }
        }
    }
    out
}

fn run_part<F: Scalar>(
    model: &Model<Tensor<F>>,
    part: Part,
    cfg: &ModelConfig,
    x: &ArrayD<F>,
) -> Result<Vec<Capture>, crate::why::Why> {
    let backend = Numeric::<F>::new();
    let capture = Watch {
        capture: true,
        ..Watch::default()
    };
    let mut rec = Recorder::new(&backend, cfg.stream_shape(), capture).in_dtype(cfg.dtype);
    let xv = Val::new(
        "x".into(),
        cfg.stream_shape(),
        vec![Axis::Batch, Axis::Seq, Axis::Model],
        cfg.dtype,
        x.clone().into(),
    );
    let block = &model.blocks[part.block];
    let p = format!("block{}", block.n);
    let sub = &block.sublayers[part.sub];
    // The sublayer's own norm, or the block's shared one.
    let norm = sub.norm.as_ref().or(block.shared.as_ref());
    let r: Result<_, Stop> = if let (true, Some(norm)) = (part.norm, norm) {
        norm.forward(&mut rec.pp(&p), &format!("ln_{}", part.sub + 1), &xv)
    } else if part.norm {
        Ok(xv.clone())
    } else {
        sub.layer(&mut rec.pp(&p), &xv, None)
    };
    let done = rec.finish();
    match (r, done.failure) {
        (Ok(_), _) => Ok(done.captures),
        (Err(_), Some(f)) => {
            let detail = match &f.detail_why.0 {
                Some(w) => crate::trace::judge::at(w, &f.path),
                None => crate::why::Why::new("check-text")
                    .arg("text", format!("{}: {}", f.path, f.detail)),
            };
            // The part's own words, then the judge's: one message each.
            let mut why = detail;
            why.key = format!("check-alone-{}", why.key);
            Err(why.arg("part", p.as_str()))
        }
        (Err(_), None) => Err(crate::why::Why::new("check-alone").arg("part", p.as_str())),
    }
}

fn positionwise<F: Scalar>(
    subject: Subject,
    tokens: &[usize],
) -> Result<Vec<Influence>, crate::why::Why> {
    let cfg = subject.cfg;
    let backend = Numeric::<F>::new();
    let model = Model::build_from(cfg, &backend, subject.source);
    let x = backend
        .normal(
            &cfg.stream_shape(),
            seed_for(cfg.seed, "probe.positionwise"),
        )
        .into_array();
    let parts = parts(&model);
    let run = |part: Part, x: &ArrayD<F>| run_part(&model, part, cfg, x);
    let base: Vec<Vec<Capture>> = parts
        .iter()
        .map(|&p| run(p, &x))
        .collect::<Result<_, _>>()?;
    tokens
        .iter()
        .map(|&t| {
            let moved_x = perturb(cfg, &x, t);
            let mut out = Vec::new();
            for (&p, before) in parts.iter().zip(&base) {
                let after = run(p, &moved_x)?;
                out.extend(token_rows(before, &after));
            }
            Ok(Influence {
                kind: Kind::Positionwise,
                token: t,
                rows: out,
                pattern: None,
            })
        })
        .collect()
}

/// Whether the probes and `reference` may re-run `cfg`: a valid model (a
/// replayed log's may be one the tool would not build) of at most
/// [`PROBE_MAX_BYTES`].
///
/// # Errors
/// Why not, in words.
pub fn rerunnable(cfg: &ModelConfig) -> Result<(), String> {
    rerunnable_why(cfg).map_err(|w| w.text())
}

/// As [`rerunnable`], why not as a catalog message.
///
/// # Errors
/// As [`rerunnable`].
pub fn rerunnable_why(cfg: &ModelConfig) -> Result<(), crate::why::Why> {
    cfg.validate()
        .map_err(|e| crate::why::Why::new("check-model-invalid").arg("error", e.to_string()))?;
    if cfg.numeric_bytes() > PROBE_MAX_BYTES {
        return Err(crate::why::Why::new("check-too-large")
            .arg("limit", crate::config::human_bytes(PROBE_MAX_BYTES)));
    }
    Ok(())
}

#[cfg(test)]
mod pattern_tests {
    use super::{Influence, Kind, Masking, OpKind, Pattern, Role, RowChange};

    fn run(changed: &[usize], mask: Masking) -> Influence {
        Influence {
            kind: Kind::Causality,
            token: 1,
            rows: vec![RowChange {
                path: "block1.attn.weights".into(),
                op: OpKind::Softmax,
                role: Role::Weights,
                batch: 1,
                seq: 4,
                delta: (0..4)
                    .map(|t| if changed.contains(&t) { 0.5 } else { 0.0 })
                    .collect(),
                unweighed: None,
            }],
            pattern: Some(Pattern {
                path: "block1.attn.weights".into(),
                mask,
                scores: None,
            }),
        }
    }

    /// Moving token 1 changes the first attention's weights exactly where
    /// the declared mask reads it: rows 1.. (causal), 1 and 2 (a window of
    /// 2), every row (two-way). A change outside is a leak; a row inside
    /// left unchanged is missing.
    #[test]
    fn the_first_attention_changes_exactly_where_the_mask_reads_the_token() {
        assert!(run(&[1, 2, 3], Masking::Causal).first_leak().is_none());
        assert!(run(&[1, 2], Masking::Window(2)).first_leak().is_none());
        assert!(run(&[0, 1, 2, 3], Masking::TwoWay).first_leak().is_none());
        let leak = run(&[1, 2, 3], Masking::Window(2)).first_leak().unwrap();
        assert_eq!((leak.pos, leak.missing), (3, false));
        let early = run(&[0, 1, 2, 3], Masking::Causal).first_leak().unwrap();
        assert_eq!((early.pos, early.missing), (0, false));
        let missing = run(&[1, 2], Masking::Causal).first_leak().unwrap();
        assert_eq!((missing.pos, missing.missing), (3, true));
        let one_way = run(&[1, 2, 3], Masking::TwoWay).first_leak().unwrap();
        assert_eq!((one_way.pos, one_way.missing), (0, true));
        // Query 1 under a window of 1 reads key 1 alone: its weight is 1
        // whatever moved, so it need not change.
        assert!(run(&[], Masking::Window(1)).first_leak().is_none());
        // Scores that stayed the same (a LayerNorm over d 2 maps many rows
        // to one) move no weight: nothing is missing.
        let mut same_key = run(&[], Masking::Causal);
        if let Some(p) = same_key.pattern.as_mut() {
            p.scores = Some("block1.attn.scores".into());
        }
        same_key.rows.insert(
            0,
            RowChange {
                path: "block1.attn.scores".into(),
                op: OpKind::Scores,
                role: Role::Scores,
                batch: 1,
                seq: 4,
                delta: vec![0.0; 4],
                unweighed: None,
            },
        );
        assert!(same_key.first_leak().is_none());
        same_key.rows[0].delta[1] = 1e-5;
        assert!(same_key.first_leak().is_none(), "moved by rounding only");
        same_key.rows[0].delta[1] = 0.5;
        assert!(same_key.first_leak().unwrap().missing, "the key moved");
        let kept = run(&[2], Masking::Window(2)).first_leak().unwrap();
        assert_eq!(
            (kept.pos, kept.missing),
            (1, true),
            "row 1 reads keys 0 and 1"
        );
    }
}

#[cfg(test)]
mod row_tests {
    use super::{Capture, OpKind, rows, token_rows};
    use crate::shape::axes;

    fn capture(names: &[&str], shape: &[usize], values: Vec<f64>) -> Capture {
        Capture {
            path: "block1.x".into(),
            op: OpKind::Add,
            role: crate::trace::Role::Other,
            shape: shape.to_vec(),
            axes: axes(names),
            values,
        }
    }

    /// An expert's batch (`n_e`, or `n_e≤` when known by its bound) has no
    /// row per token and is passed over; the rows of the scores are their
    /// queries (`Tq`).
    #[test]
    fn token_rows_skip_an_experts_batch_and_read_the_queries() {
        let at = |names: &[&str]| {
            let a = capture(names, &[2, 2], vec![0.0; 4]);
            let b = capture(names, &[2, 2], vec![1.0; 4]);
            token_rows(&[a], &[b]).count()
        };
        assert_eq!(at(&["n_e", "d"]), 0);
        assert_eq!(at(&["n_e≤", "d"]), 0);
        assert_eq!(at(&["B", "T"]), 1);
        // (B=1, h=2, Tq=3, Tk=2): query 1 of head 1 moved.
        let a = capture(&["B", "h", "Tq", "Tk"], &[1, 2, 3, 2], vec![0.0; 12]);
        let mut moved = a.values.clone();
        moved[6 + 2] = 1.0;
        let b = capture(&["B", "h", "Tq", "Tk"], &[1, 2, 3, 2], moved);
        let r = rows(&a, &b);
        assert_eq!((r.batch, r.seq), (1, 3));
        assert!(
            r.delta[1] > 0.5 && r.delta[0] == 0.0 && r.delta[2] == 0.0,
            "{:?}",
            r.delta
        );
    }
}
