//! Everything a caller of the library can get wrong, each with a one-line
//! message: one error type over every layer's own.

use crate::{config, npy, plan, text, trace, weights};

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
