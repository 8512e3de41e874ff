//! What a run is asked for ([`Request`]) and what it decides ([`Plan`]):
//! numbers or shapes only, under a memory limit.
//!
//! A numeric run whose estimate (weights plus live activations, see
//! [`ModelConfig::numeric_bytes`]; a mapped checkpoint's weights as
//! [`crate::weights::Checkpoint::held_bytes`] counts them) exceeds the limit traces shapes only and
//! says so in [`Plan::note`]. When numbers are required — [`ModeChoice::Numeric`],
//! loaded weights or a given input — the run is refused instead, naming the
//! estimate and the limit. Asking for the output values
//! ([`Request::keep_output`]) requires numbers too.
//!
//! ```
//! use shapetrace::plan::{Request, plan};
//! let xl = shapetrace::config::preset::by_name("gpt2-xl").unwrap();
//! let p = plan(&xl, &Request::default()).unwrap();
//! assert!(p.switched && p.note().unwrap().contains("shapes only"));
//! ```
//!
//! Every run also holds its trace: every event of every block. Before any
//! work, [`plan`] estimates those bytes ([`held::estimate`]) and refuses a
//! run whose trace alone would pass the limit in force: `--max-memory`
//! (default 4 GiB) or, when lower, what the process's own limit
//! (`ulimit -v`, `ulimit -d`) leaves ([`limit::process_limit`]). A run
//! never aborts for want of memory half-way.

pub mod bytes;
pub mod held;
pub mod limit;

use crate::config::{ConfigError, ModelConfig, human_bytes};
use crate::trace::Mode;
pub use crate::trace::hooks::{Hooks, Progress, ProgressFn};
use crate::weights::Weights;
pub use bytes::parse_bytes;
use ndarray::ArrayD;
use std::sync::Arc;

/// The memory limit of a numeric run when none is given: 4 GiB.
pub const DEFAULT_MAX_MEMORY: u128 = 4 << 30;

/// How the caller wants the run computed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ModeChoice {
    /// Numbers when they fit under the limit, shapes only otherwise.
    #[default]
    Auto,
    /// Numbers or nothing (`--numeric`).
    Numeric,
    /// Shapes only (`--shape-only`).
    ShapeOnly,
}

/// Everything a run can be given beyond its config.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Numbers, shapes only, or whichever fits the memory limit.
    pub mode: ModeChoice,
    /// Keep the values of tensors of at most 4096 elements in the events.
    pub values: bool,
    /// The numeric limit in bytes; `None` is [`DEFAULT_MAX_MEMORY`].
    pub max_memory: Option<u128>,
    /// Loaded weights in place of the seeded ones (requires numbers).
    pub weights: Option<Arc<Weights>>,
    /// Bytes a 16-bit checkpoint's weights hold during a numeric run
    /// (`Checkpoint::held_bytes`): the estimate counts these in place of
    /// the seeded weights. `None` otherwise (an F32 checkpoint's mapped
    /// tensors count as the seeded f32 weights do, once).
    pub weights_held: Option<u128>,
    /// The input x0 (B, T, d_model) in place of the seeded one (requires numbers).
    pub input: Option<Arc<ArrayD<f32>>>,
    /// The token ids (B, T) in place of the seeded ones, for a model with a
    /// vocabulary; within 0..V ([`crate::tokens::check_range`]).
    pub tokens: Option<Arc<ndarray::Array2<i64>>>,
    /// Return the model's final output values (requires numbers).
    pub keep_output: bool,
    /// The run makes one forward (`trace`): a 16-bit checkpoint is widened
    /// op by op whatever the limit, since keeping its weights in f32 pays
    /// only from a second forward on (the probes, the stepper's re-traces).
    pub one_forward: bool,
    /// Progress reports and a cancel flag for the run.
    pub hooks: Hooks,
    /// What the model's sources left to a guess or did not know (a
    /// config.json's unknown fields, a checkpoint's inferred settings),
    /// one line each, for the run to say.
    pub notes: Vec<String>,
    /// What the model reads that the checkpoint lacked, drawn from the
    /// seed under `--fill-missing seeded` (the file's name and shape for
    /// each), for the trace log's header; empty otherwise.
    pub seeded: Vec<String>,
}

impl Request {
    /// Shapes only, and nothing else asked.
    #[must_use]
    pub fn shapes() -> Self {
        Self {
            mode: ModeChoice::ShapeOnly,
            ..Self::default()
        }
    }

    /// Why this request needs numbers, if it does.
    #[must_use]
    pub fn needs_numbers(&self) -> Option<&'static str> {
        if self.weights.is_some() {
            Some("--weights")
        } else if self.input.is_some() {
            Some("--input")
        } else if self.keep_output {
            Some("--output")
        } else if self.mode == ModeChoice::Numeric {
            Some("--numeric")
        } else {
            None
        }
    }

    /// The limit in force: this request's, else the command line's
    /// ([`limit::set_max_memory`]), else [`DEFAULT_MAX_MEMORY`].
    #[must_use]
    pub fn limit(&self) -> u128 {
        self.max_memory
            .or_else(limit::given_max_memory)
            .unwrap_or(DEFAULT_MAX_MEMORY)
    }
}

/// The decision a run made: numbers or shapes, and the memory figures behind it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Whether the run computes numbers or shapes only.
    pub mode: Mode,
    /// Bytes a numeric run of the config would hold at once.
    pub estimate: u128,
    /// The limit in force.
    pub limit: u128,
    /// The run was switched to shapes only because the estimate is over the limit.
    pub switched: bool,
}

impl Plan {
    /// A one-line note when the run was switched to shapes only.
    #[must_use]
    pub fn note(&self) -> Option<String> {
        self.switched.then(|| {
            format!(
                "note: a numeric run needs about {}, over the --max-memory limit of {}; tracing shapes only (--numeric to insist, --max-memory to raise the limit)",
                human_bytes(self.estimate),
                human_bytes(self.limit)
            )
        })
    }

    /// [`Plan::note`] in one line of a narrow screen, for the stepper's
    /// footer (its header marks the run `shapes only` as long as it is).
    #[must_use]
    pub fn short_note(&self) -> Option<String> {
        self.switched.then(|| {
            format!(
                "shapes only: a numeric run needs about {}, over --max-memory {}",
                human_bytes(self.estimate),
                human_bytes(self.limit)
            )
        })
    }
}

/// Decides how `cfg` runs under `req`.
///
/// # Errors
/// [`ConfigError`] when `cfg` is invalid, when shapes only are asked for
/// together with weights or an input, or when numbers are required and the
/// estimate is over the limit, or when the trace alone would pass the
/// limit ([`check_held`]).
pub fn plan(cfg: &ModelConfig, req: &Request) -> Result<Plan, ConfigError> {
    cfg.validate()?;
    check_held(cfg, req)?;
    if let Some(why) = req.needs_numbers() {
        require_numbers(cfg, req, why)?;
    }
    let estimate = cfg.numeric_bytes_with(req.weights_held);
    let limit = in_force(req);
    let over = estimate > limit;
    let shape_only = req.mode == ModeChoice::ShapeOnly || over;
    Ok(Plan {
        mode: if shape_only {
            Mode::ShapeOnly
        } else {
            Mode::Numeric
        },
        estimate,
        limit,
        switched: over && req.mode == ModeChoice::Auto,
    })
}

/// Refuses a run that must compute numbers (because of `why`) but cannot:
/// shapes only were asked for, or the estimate is over the limit.
///
/// # Errors
/// [`ConfigError::Conflict`] or [`ConfigError::TooBig`].
pub fn require_numbers(
    cfg: &ModelConfig,
    req: &Request,
    why: &'static str,
) -> Result<(), ConfigError> {
    if req.mode == ModeChoice::ShapeOnly {
        return Err(ConfigError::Conflict {
            a: "--shape-only",
            b: why,
        });
    }
    let need = cfg.numeric_bytes_with(req.weights_held);
    if need > in_force(req) {
        return Err(ConfigError::TooBig {
            need: human_bytes(need),
            limit: human_bytes(in_force(req)),
            why,
        });
    }
    Ok(())
}

/// The limit a run is weighed against: [`Request::limit`], or what the
/// process's own limit leaves ([`limit::process_limit`]) when that is
/// lower, so that a numeric run under `ulimit -v` traces shapes only (or,
/// when numbers are required, is refused) instead of aborting.
#[must_use]
pub fn in_force(req: &Request) -> u128 {
    let asked = req.limit();
    limit::process_limit().map_or(asked, |p| p.left.min(asked))
}

/// Refuses a run whose trace alone ([`held::estimate`]) would hold more
/// than the limit in force: the request's, or what the process's own
/// limit leaves when that is lower. The one line names the estimate, the
/// limit and what to change.
///
/// # Errors
/// [`ConfigError::Field`] naming the trace's size and the limit.
pub fn check_held(cfg: &ModelConfig, req: &Request) -> Result<Option<held::Held>, ConfigError> {
    let Some(held) = held::estimate(cfg) else {
        return Ok(None);
    };
    let (bytes, over, raise) = match limit::process_limit() {
        Some(p) if p.left < req.limit() => (
            p.left,
            format!(
                "what the process's memory limit ({}) leaves, {}",
                p.name,
                human_bytes(p.left)
            ),
            "raise that limit",
        ),
        _ => (
            req.limit(),
            format!("the --max-memory limit of {}", human_bytes(req.limit())),
            "raise --max-memory",
        ),
    };
    if held.bytes <= bytes {
        return Ok(Some(held));
    }
    let each = match cfg.mixture {
        None => String::new(),
        Some(m) => format!(" of {} experts each", m.experts),
    };
    let fewer = if cfg.mixture.is_some() {
        "lower --layers or --experts"
    } else {
        "lower --layers"
    };
    Err(ConfigError::Field {
        field: "the trace",
        got: format!(
            "of {} blocks{each} holds about {} steps in about {}, over {over}",
            cfg.layers,
            held.events,
            human_bytes(held.bytes)
        ),
        allowed: format!(
            "at most {} blocks of this model ({fewer}), or {raise}",
            held.blocks_within(bytes, cfg.layers)
        ),
    })
}
