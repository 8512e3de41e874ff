//! shapetrace: run a stack of transformer blocks and make the shape
//! contract visible.
//!
//! Every sublayer maps (B, T, d_model) → (B, T, d_model), so blocks stack
//! and their outputs add onto the residual stream. [`trace`] runs a model
//! and records every intermediate tensor as an [`Event`]; [`check`] judges
//! the trace against the contract.
//!
//! ```
//! let cfg = shapetrace::ModelConfig::default(); // the lesson model
//! let run = shapetrace::run(&cfg).unwrap();
//! let scores = run.trace.get("block1.attn.scores").unwrap();
//! assert_eq!(scores.shape, [2, 4, 4, 4]);
//! assert!(run.checks.iter().all(|c| c.ok()));
//! ```

pub mod budget;
pub mod check;
pub mod config;
pub mod lesson;
pub mod model;
pub mod ops;
pub mod trace;
pub mod tui;

pub use budget::Budget;
pub use check::{CheckResult, Status};
pub use config::{ModelConfig, file::Overlay};
pub use ops::Shape;
pub use trace::{CheckName, Event, Trace};

use model::Model;
use ops::Backend;
use ops::numeric::{Numeric, Scalar};
use ops::shape::ShapeOnly;
use trace::Mode;
use trace::recorder::{Capture, Recorder};

/// Everything a caller can get wrong, each with a one-line message.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    #[error(transparent)]
    Name(#[from] config::names::UnknownName),
    #[error(transparent)]
    File(#[from] config::file::FileError),
    #[error(transparent)]
    Log(#[from] trace::log::LogError),
    /// A config error in a model built from a model file.
    #[error("{inner} (model from {path})")]
    InModelFile { path: String, inner: Box<Error> },
}

/// What to keep while tracing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Trace shapes only, with no values.
    pub shape_only: bool,
    /// Keep the values of tensors of at most 4096 elements in the events.
    pub values: bool,
}

/// A trace and the checks' verdicts on it.
#[derive(Debug, Clone)]
pub struct Run {
    pub trace: Trace,
    pub checks: Vec<CheckResult>,
}

impl Run {
    /// Whether every check holds (skipped checks do not fail).
    #[must_use]
    pub fn ok(&self) -> bool {
        self.checks.iter().all(CheckResult::ok)
    }
}

/// Traces the model of `cfg` numerically, keeping no values.
///
/// # Errors
/// [`Error::Config`] when `cfg` is invalid.
pub fn trace(cfg: &ModelConfig) -> Result<Trace, Error> {
    trace_with(cfg, Options::default())
}

/// Traces the model of `cfg` with `opts`.
///
/// # Errors
/// [`Error::Config`] when `cfg` is invalid, or too large for a numeric run.
pub fn trace_with(cfg: &ModelConfig, opts: Options) -> Result<Trace, Error> {
    cfg.validate()?;
    if !opts.shape_only {
        cfg.check_numeric_budget()?;
    }
    Ok(if opts.shape_only {
        record(cfg, &ShapeOnly(cfg.dtype), None, opts.values, false).0
    } else {
        match cfg.dtype {
            config::DType::F32 => numeric::<f32>(cfg, None, opts.values, false).0,
            config::DType::F64 => numeric::<f64>(cfg, None, opts.values, false).0,
        }
    })
}

/// Traces `cfg` and runs every check, including the probes.
///
/// # Errors
/// [`Error::Config`] when `cfg` is invalid.
pub fn run(cfg: &ModelConfig) -> Result<Run, Error> {
    run_with(cfg, Options::default())
}

/// As [`run`], with `opts`.
///
/// # Errors
/// [`Error::Config`] when `cfg` is invalid.
pub fn run_with(cfg: &ModelConfig, opts: Options) -> Result<Run, Error> {
    let trace = trace_with(cfg, opts)?;
    let checks = check::all(&trace);
    Ok(Run { trace, checks })
}

/// A numeric trace in `F`, on x0 (or the seeded input), with captures if asked.
pub(crate) fn numeric<F: Scalar>(
    cfg: &ModelConfig,
    x0: Option<ndarray::ArrayD<F>>,
    values: bool,
    capture: bool,
) -> (Trace, Vec<Capture>) {
    record(cfg, &Numeric::<F>::new(), x0, values, capture)
}

fn record<B: Backend>(
    cfg: &ModelConfig,
    backend: &B,
    x0: Option<B::Tensor>,
    values: bool,
    capture: bool,
) -> (Trace, Vec<Capture>) {
    let model = Model::build(cfg, backend);
    let x0 = x0.unwrap_or_else(|| model::input(cfg, backend));
    let mut rec = Recorder::new(backend, cfg.stream_shape(), values, capture);
    // A stop is not an error here: the failure is part of the trace.
    let _ = model.forward(&mut rec, x0);
    let done = rec.finish();
    let mode = if B::NUMERIC {
        Mode::Numeric
    } else {
        Mode::ShapeOnly
    };
    let trace = Trace {
        config: cfg.clone(),
        mode,
        stream_shape: cfg.stream_shape(),
        events: done.events,
        failure: done.failure,
    };
    (trace, done.captures)
}
