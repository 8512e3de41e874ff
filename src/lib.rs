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

pub mod allocator;
pub mod budget;
pub mod check;
pub mod config;
pub mod files;
pub mod json;
pub mod lesson;
pub mod load;
pub mod model;
pub mod npy;
pub mod ops;
pub mod plan;
pub mod text;
pub mod trace;
pub mod tui;
pub mod weights;

pub use budget::Budget;
pub use check::{CheckResult, Status};
pub use config::{ModelConfig, file::Overlay};
pub use ops::Shape;
pub use plan::{Hooks, ModeChoice, Plan, Progress, Request};
pub use trace::{CheckName, Event, Trace};

use model::{Model, Source};
use ndarray::ArrayD;
use ops::Backend;
use ops::numeric::{Numeric, Scalar};
use ops::shape::ShapeOnly;
use trace::Mode;
use trace::recorder::{Capture, Recorder, Watch};

/// Everything a caller can get wrong, each with a one-line message.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    #[error(transparent)]
    Resolve(#[from] config::ResolveError),
    #[error(transparent)]
    File(#[from] config::file::FileError),
    #[error(transparent)]
    Log(#[from] trace::log::LogError),
    /// A config error in a model built from a model file.
    #[error("{inner} (model from {})", text::shown(.path))]
    InModelFile { path: String, inner: Box<Error> },
    #[error(transparent)]
    Weights(#[from] weights::WeightsError),
    #[error(transparent)]
    Npy(#[from] npy::NpyError),
    #[error(transparent)]
    Size(#[from] plan::bytes::BadSize),
    #[error(
        "--input is {}, but the model's stream is {want}; allowed: (B, T, d_model) with d_model {d}",
        text::shown(.got)
    )]
    InputShape { got: String, want: String, d: usize },
    /// `got` is the file's shape, which may list thousands of dimensions.
    #[error("--input is {}; allowed: a rank-3 array (B, T, d_model)", text::shown(.got))]
    InputRank { got: String },
    #[error(
        "--{flag} {value} contradicts --input {}, whose {dim} is {file}; allowed: --{flag} {file}, or no --{flag} (B and T come from the file)",
        text::shown(.path)
    )]
    InputDims {
        flag: &'static str,
        value: usize,
        path: String,
        dim: &'static str,
        file: usize,
    },
    #[error("the run was cancelled")]
    Cancelled,
}

/// A trace and the checks' verdicts on it.
#[derive(Debug, Clone)]
pub struct Run {
    pub trace: Trace,
    pub checks: Vec<CheckResult>,
    /// Numbers or shapes, and why.
    pub plan: Plan,
}

impl Run {
    /// Whether every check holds (skipped checks do not fail).
    #[must_use]
    pub fn ok(&self) -> bool {
        self.checks.iter().all(CheckResult::ok)
    }
}

/// A finished trace, the plan it ran under and, when asked, the output.
#[derive(Debug, Clone)]
pub struct Traced {
    pub trace: Trace,
    pub plan: Plan,
    /// The model's final output (B, T, d) as f32, with
    /// [`Request::keep_output`] on a numeric run that did not stop.
    pub output: Option<ArrayD<f32>>,
}

/// Traces the model of `cfg` numerically (or shapes only when too large),
/// keeping no values. For shapes only, values, weights, an input, a memory
/// limit, progress or cancelling, see [`Request`] and [`trace_request`].
///
/// # Errors
/// [`Error::Config`] when `cfg` is invalid.
pub fn trace(cfg: &ModelConfig) -> Result<Trace, Error> {
    Ok(trace_request(cfg, &Request::default())?.trace)
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
    check::all_of(trace, req.subject(&trace.config))
}

/// Plans and traces `cfg` under `req`: numbers or shapes, seeded or loaded
/// weights, the seeded input or the given one, with progress and cancel.
///
/// # Errors
/// [`Error::Config`] for an invalid config or a refused plan,
/// [`Error::InputShape`] when the input is not the stream shape, and
/// [`Error::Cancelled`] when the cancel flag was set.
pub fn trace_request(cfg: &ModelConfig, req: &Request) -> Result<Traced, Error> {
    let plan = plan::plan(cfg, req)?;
    if let Some(x) = &req.input
        && x.shape() != cfg.stream_shape().as_slice()
    {
        return Err(Error::InputShape {
            got: ops::fmt_shape(x.shape()),
            want: ops::fmt_shape(&cfg.stream_shape()),
            d: cfg.d_model,
        });
    }
    let source = req
        .weights
        .as_deref()
        .map_or(Source::Seeded, Source::Loaded);
    let shapes = || record(cfg, &ShapeOnly(cfg.dtype), source, None, &Watch::default());
    if plan.mode == Mode::ShapeOnly {
        return Ok(Traced {
            trace: shapes().trace,
            plan,
            output: None,
        });
    }
    let expected = if req.hooks.progress.is_some() {
        shapes().trace.events.len()
    } else {
        0
    };
    let watch = Watch {
        values: req.values,
        capture: false,
        hooks: req.hooks.clone(),
        expected,
    };
    let x0 = req.input.as_deref().map(|x| x.mapv(f64::from));
    let (trace, output) = match cfg.dtype {
        config::DType::F32 => numeric::<f32>(cfg, source, x0, &watch),
        config::DType::F64 => numeric::<f64>(cfg, source, x0, &watch),
    }?;
    Ok(Traced {
        trace,
        plan,
        output: output.filter(|_| req.keep_output),
    })
}

/// A numeric trace in `F` on x0 (or the seeded input), and its output as f32.
fn numeric<F: Scalar>(
    cfg: &ModelConfig,
    source: Source,
    x0: Option<ArrayD<f64>>,
    watch: &Watch,
) -> Result<(Trace, Option<ArrayD<f32>>), Error> {
    let x0 = x0.map(|x| x.mapv(F::of));
    let r = record(cfg, &Numeric::<F>::new(), source, x0, watch);
    if r.cancelled {
        return Err(Error::Cancelled);
    }
    #[allow(clippy::cast_possible_truncation)]
    let out = r.output.map(|o| o.mapv(|v| v.f64() as f32));
    Ok((r.trace, out))
}

/// A numeric trace in `F` of `source`'s weights on x0 with every tensor
/// captured, for the probes.
pub(crate) fn captured<F: Scalar>(
    cfg: &ModelConfig,
    source: Source,
    x0: ArrayD<F>,
) -> (Trace, Vec<Capture>) {
    let watch = Watch {
        capture: true,
        ..Watch::default()
    };
    let r = record(cfg, &Numeric::<F>::new(), source, Some(x0), &watch);
    (r.trace, r.captures)
}

/// What [`record`] gives back.
struct Recorded<T> {
    trace: Trace,
    captures: Vec<Capture>,
    output: Option<T>,
    cancelled: bool,
}

fn record<B: Backend>(
    cfg: &ModelConfig,
    backend: &B,
    source: Source,
    x0: Option<B::Tensor>,
    watch: &Watch,
) -> Recorded<B::Tensor> {
    let model = Model::build_from(cfg, backend, source);
    let x0 = x0.unwrap_or_else(|| model::input(cfg, backend));
    let mut rec = Recorder::new(backend, cfg.stream_shape(), false, false).watched(watch.clone());
    // A stop is not an error here: the failure is part of the trace.
    let output = model.forward(&mut rec, x0).ok().map(|v| v.t);
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
    Recorded {
        trace,
        captures: done.captures,
        output,
        cancelled: done.cancelled,
    }
}
