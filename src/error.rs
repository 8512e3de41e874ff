//! Everything a caller of the library can get wrong, each with a one-line
//! message: one error type over every layer's own.

use crate::{config, npy, plan, text, trace, weights};

/// Everything a caller can get wrong, each with a one-line message.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An impossible or unsupported configuration.
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    /// An overlay whose base preset is unknown or whose result breaks a rule.
    #[error(transparent)]
    Resolve(#[from] config::ResolveError),
    /// A model file (`--config`) that could not be read or parsed.
    #[error(transparent)]
    File(#[from] config::file::FileError),
    /// A trace log (`view FILE`) that could not be read.
    #[error(transparent)]
    Log(#[from] trace::log::LogError),
    /// A config error in a model built from a model file.
    #[error("{inner} (model from {})", text::shown(.path))]
    InModelFile {
        /// The model file the config came from.
        path: String,
        /// The error the config itself gave.
        inner: Box<Error>,
    },
    /// A checkpoint (`--weights`) that could not be used.
    #[error(transparent)]
    Weights(#[from] weights::WeightsError),
    /// An `.npy` file (`--input`, `--output`) that could not be used.
    #[error(transparent)]
    Npy(#[from] npy::NpyError),
    /// A memory size (`--max-memory`) that could not be parsed.
    #[error(transparent)]
    Size(#[from] plan::bytes::BadSize),
    /// The given input is not the model's stream shape (B, T, d_model).
    #[error(
        "--input is {}, but the model's stream is {want}; allowed: (B, T, d_model) with d_model {d}",
        text::shown(.got)
    )]
    InputShape {
        /// The input's shape, e.g. `(2,4,32)`.
        got: String,
        /// The stream shape the model expects, e.g. `(2,4,64)`.
        want: String,
        /// The model's d_model.
        d: usize,
    },
    /// `--decode` with `--input`: a decode step feeds a token (or, with no
    /// vocabulary, a seeded row), which a given x0 has none of.
    #[error(
        "--decode {steps} with --input: a decode step feeds a new token, and a given x0 (B, T, d_model) holds only the prompt; allowed: --decode with --tokens or the seeded input, or --input without --decode"
    )]
    DecodeInput {
        /// The decode steps asked for.
        steps: usize,
    },
    /// The `--input` file is not rank 3. `got` is the file's shape, which
    /// may list thousands of dimensions.
    #[error("--input is {}; allowed: a rank-3 array (B, T, d_model)", text::shown(.got))]
    InputRank {
        /// The file's shape, e.g. `(2,4)`.
        got: String,
    },
    /// `--batch` or `--seq` disagrees with the B or T of the `--input`
    /// file or of the `--tokens` ids.
    #[error(
        "--{flag} {value} contradicts {from} {}, whose {dim} is {file}; allowed: --{flag} {file}, or no --{flag} (B and T come from {from})",
        text::shown(.path)
    )]
    InputDims {
        /// The flag given, `batch` or `seq`.
        flag: &'static str,
        /// The flag's value.
        value: usize,
        /// Where B and T came from: `--input` or `--tokens`.
        from: &'static str,
        /// The `--input` file or the `--tokens` value.
        path: String,
        /// The axis the flag sets, `B` or `T`.
        dim: &'static str,
        /// That axis's size in the file.
        file: usize,
    },
    /// `--tokens` that cannot be used: unparsable, or ids outside 0..V.
    #[error(transparent)]
    Tokens(#[from] crate::tokens::TokensError),
    /// `--tokens` and `--input` together: a run starts at one of them.
    #[error(
        "--tokens conflicts with --input: a run starts at the token ids or at x0; allowed: one of them"
    )]
    TokensAndInput,
    /// `--tokens` for a model with no vocabulary to look them up in.
    #[error(
        "--tokens needs a model with a vocabulary; allowed: --vocab V, --preset lesson-lm or a gpt2 preset, a config.json, or a checkpoint with wte"
    )]
    TokensNoVocab,
    /// A name that is none of the allowed ones: a preset
    /// (`config::preset::by_name`), a fault, an activation, …
    #[error(transparent)]
    Name(#[from] config::names::UnknownName),
    /// A lab's input that cannot be used (the FFN by hand, the norms).
    #[error(transparent)]
    Lesson(#[from] crate::lesson::LessonError),
    /// The caller set the cancel flag before the run finished.
    #[error("the run was cancelled")]
    Cancelled,
}
