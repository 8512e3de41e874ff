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
pub mod arch;
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
pub mod report;
pub mod run;
pub mod seed;
pub mod shape;
pub mod text;
pub mod trace;
pub mod tui;
pub mod weights;

pub use budget::Budget;
pub use check::{CheckResult, Status};
pub use config::{ModelConfig, file::Overlay};
pub use plan::{Hooks, ModeChoice, Plan, Progress, Request};
pub use shape::Shape;
pub use trace::{CheckName, Event, Trace};

pub use report::{Run, checks_for, run, run_request};
pub use run::{Traced, trace, trace_request};

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
