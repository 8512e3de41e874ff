//! Which rows of each tensor change when one input row changes: the data
//! behind the `positionwise` and `causality` probes and the Probes lab.
//!
//! - [`Kind::Causality`]: token t of batch element 0 of x0 moves by N(0, 1)
//!   noise and the whole model runs again.
//! - [`Kind::Positionwise`]: each norm and MLP runs alone on a random
//!   (B, T, d) input, before and after row t of batch 0 moves.

use crate::config::{DType, ModelConfig};
use crate::model::{self, Model, Source, block::Block, seed_for};
use crate::ops::Backend;
use crate::ops::numeric::{Numeric, Scalar};
use crate::trace::recorder::{Capture, Recorder, Stop, Val};
use crate::weights::Weights;
use ndarray::{ArrayD, s};

mod grid;
pub use grid::Cell;

/// What the probes re-run: a config with its weights, seeded or loaded,
/// and for causality its input x0, seeded or given (B, T, d_model).
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    pub cfg: &'a ModelConfig,
    pub source: Source<'a>,
    pub input: Option<&'a ArrayD<f32>>,
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
        }
    }

    /// The seeded weights on the seeded input.
    #[must_use]
    pub fn seeded(cfg: &'a ModelConfig) -> Self {
        Self {
            cfg,
            source: Source::Seeded,
            input: None,
        }
    }
}

/// Which probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Causality,
    Positionwise,
}

/// One tensor's rows: the largest |Δ| per (batch, position), 0 where the
/// row did not change.
#[derive(Debug, Clone, PartialEq)]
pub struct RowChange {
    pub path: String,
    pub op: String,
    pub batch: usize,
    pub seq: usize,
    /// Row-major (batch, position).
    pub delta: Vec<f64>,
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
    pub kind: Kind,
    pub token: usize,
    pub rows: Vec<RowChange>,
}

impl Kind {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Kind::Causality => "causality",
            Kind::Positionwise => "positionwise",
        }
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

    /// Whether `r` is a row worth showing: for causality the sublayer
    /// interfaces and the attention mix; for positionwise every tensor but
    /// the pre-mask scores.
    #[must_use]
    pub fn shows(self, r: &RowChange) -> bool {
        let leaf = r.path.split_once('.').map_or(r.path.as_str(), |(_, l)| l);
        match self {
            Kind::Causality => {
                r.path == "input"
                    || matches!(
                        leaf,
                        "ln_1"
                            | "attn.weights"
                            | "attn.merge"
                            | "resid_1"
                            | "mlp.act"
                            | "resid_2"
                            | "ln_f"
                    )
            }
            Kind::Positionwise => r.op != "scores",
        }
    }
}

/// Moves each token of `tokens` in turn and reports what changed.
///
/// # Errors
/// Why the model cannot be re-run: the forward (or a sublayer run alone)
/// stops at a failed check.
pub fn influence(subject: Subject, kind: Kind, tokens: &[usize]) -> Result<Vec<Influence>, String> {
    let cfg = subject.cfg;
    if cfg.numeric_bytes() > super::probe::PROBE_MAX_BYTES {
        return Err(format!(
            "model too large to re-run (limit {})",
            crate::config::human_bytes(super::probe::PROBE_MAX_BYTES)
        ));
    }
    match (cfg.dtype, kind) {
        (DType::F32, Kind::Causality) => causal::<f32>(subject, tokens),
        (DType::F64, Kind::Causality) => causal::<f64>(subject, tokens),
        (DType::F32, Kind::Positionwise) => positionwise::<f32>(subject, tokens),
        (DType::F64, Kind::Positionwise) => positionwise::<f64>(subject, tokens),
    }
}

/// x with token `t` of batch element 0 moved by N(0, 1) noise.
fn perturb<F: Scalar>(cfg: &ModelConfig, x: &ArrayD<F>, t: usize) -> ArrayD<F> {
    let noise = Numeric::<F>::new().normal(
        &[cfg.d_model],
        seed_for(cfg.seed, &format!("probe.token{t}")),
    );
    let mut y = x.clone();
    let mut row = y.slice_mut(s![0, t, ..]);
    row += &noise;
    y
}

/// The largest change per (batch, position) row between two captures of
/// one tensor; a change counts when it exceeds 1e-6 relative.
fn rows(a: &Capture, b: &Capture) -> RowChange {
    let t_axis = a.axes.iter().position(|x| x == "T").unwrap_or(1);
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
        op: a.op.clone(),
        batch: nb,
        seq: nt,
        delta,
    }
}

fn causal<F: Scalar>(subject: Subject, tokens: &[usize]) -> Result<Vec<Influence>, String> {
    let (cfg, source) = (subject.cfg, subject.source);
    let x0 = match subject.input {
        Some(x) => x.mapv(|v| F::of(f64::from(v))),
        None => model::input(cfg, &Numeric::<F>::new()),
    };
    let (trace, base) = crate::captured::<F>(cfg, source, x0.clone());
    if let Some(f) = trace.failure {
        return Err(format!("the forward stops at {}", f.path));
    }
    tokens
        .iter()
        .map(|&t| {
            let (moved_trace, moved) = crate::captured::<F>(cfg, source, perturb(cfg, &x0, t));
            if let Some(f) = moved_trace.failure {
                return Err(format!("the perturbed run stops at {}", f.path));
            }
            let rows = base.iter().zip(&moved).map(|(a, b)| rows(a, b)).collect();
            Ok(Influence {
                kind: Kind::Causality,
                token: t,
                rows,
            })
        })
        .collect()
}

/// One norm or the MLP of a block, run alone.
#[derive(Clone, Copy)]
enum Part {
    Ln1,
    Mlp,
    Ln2,
}

fn run_part<F: Scalar>(
    block: &Block<ArrayD<F>>,
    part: Part,
    p: &str,
    cfg: &ModelConfig,
    x: &ArrayD<F>,
) -> Result<Vec<Capture>, String> {
    let backend = Numeric::<F>::new();
    let mut rec = Recorder::new(&backend, cfg.stream_shape(), false, true);
    let xv = Val {
        path: "x".into(),
        t: x.clone(),
        axes: ["B", "T", "d"].map(String::from).to_vec(),
    };
    let r: Result<_, Stop> = match part {
        Part::Ln1 => block.ln_1.forward(&mut rec, &format!("{p}.ln_1"), &xv),
        Part::Mlp => block.mlp.forward(&mut rec, &format!("{p}.mlp"), &xv),
        Part::Ln2 => block.ln_2.forward(&mut rec, &format!("{p}.ln_2"), &xv),
    };
    let done = rec.finish();
    match (r, done.failure) {
        (Ok(_), _) => Ok(done.captures),
        (Err(_), Some(f)) => Err(format!("cannot run {p} alone: {}: {}", f.path, f.detail)),
        (Err(_), None) => Err(format!("cannot run {p} alone")),
    }
}

fn positionwise<F: Scalar>(subject: Subject, tokens: &[usize]) -> Result<Vec<Influence>, String> {
    let cfg = subject.cfg;
    let backend = Numeric::<F>::new();
    let model = Model::build_from(cfg, &backend, subject.source);
    let x = backend.normal(
        &cfg.stream_shape(),
        seed_for(cfg.seed, "probe.positionwise"),
    );
    let parts: Vec<(usize, Part)> = (0..model.blocks.len())
        .flat_map(|i| [Part::Ln1, Part::Mlp, Part::Ln2].map(|p| (i, p)))
        .collect();
    let run = |(i, part): (usize, Part), x: &ArrayD<F>| {
        run_part(&model.blocks[i], part, &format!("block{}", i + 1), cfg, x)
    };
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
                out.extend(before.iter().zip(&after).map(|(a, b)| rows(a, b)));
            }
            Ok(Influence {
                kind: Kind::Positionwise,
                token: t,
                rows: out,
            })
        })
        .collect()
}
