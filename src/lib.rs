#![warn(missing_docs)]
//! shapetrace: run a stack of transformer blocks and make the shape
//! contract visible.
//!
//! Every sublayer maps (B, T, d_model) → (B, T, d_model), so blocks stack
//! and their outputs add onto the residual stream. [`trace()`] runs a model
//! and records every intermediate tensor as an [`Event`]; [`check`] judges
//! the trace against the contract.
//!
//! ```
//! let cfg = shapetrace::ModelConfig::default(); // the lesson model
//! let run = shapetrace::run(&cfg).unwrap();
//! let scores = run.trace.get("block1.attn.scores").unwrap();
//! assert_eq!(scores.shape, [2, 4, 4, 4]);
//! assert!(run.checks.iter().all(|c| c.ok));
//! ```

pub mod allocator;
pub mod arch;
pub mod budget;
pub mod check;
pub mod compare;
pub mod config;
pub mod error;
pub mod files;
pub mod i18n;
pub mod json;
pub mod lesson;
pub mod load;
pub mod model;
pub mod npy;
pub mod ops;
pub mod plan;
pub mod quiz;
pub mod report;
pub mod run;
pub mod seed;
pub mod shape;
pub mod text;
pub mod tokens;
pub mod trace;
pub mod tui;
pub mod weights;
pub mod why;

pub use budget::Budget;
pub use check::{CheckResult, Status};
pub use config::{ModelConfig, file::Overlay};
pub use error::Error;
pub use plan::{Hooks, ModeChoice, Plan, Progress, Request};
pub use shape::Shape;
pub use trace::{CheckName, Event, Trace};

pub use report::{Run, checks_for, run, run_request};
pub use run::{Traced, trace, trace_request};
