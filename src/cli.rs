//! The command line: model options shared by every subcommand, and the
//! subcommands themselves.

mod clash;
mod model;
pub mod package;
pub mod usage;

pub use clash::check as check_paths;

use clap::{Args, Parser, Subcommand, ValueEnum};
pub use model::ModelArgs;
use shapetrace::budget::Precision;
use std::path::PathBuf;

/// Run a stack of transformer blocks and watch every tensor's shape leave
/// (B, T, d_model) and come back before each residual add.
///
/// With no command, opens the interactive stepper on the model.
#[derive(Debug, Parser)]
#[command(name = "shapetrace", version, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub model: ModelArgs,
    /// Open the stepper in quiz mode: predict each new shape before it is shown.
    #[arg(long)]
    pub quiz: bool,
    /// Open the stepper in presenter mode, for a projector.
    #[arg(long)]
    pub present: bool,
    /// Open the stepper at the step PATH (e.g. block1.attn.scores), with any
    /// --fault.
    #[arg(long, value_name = "PATH")]
    pub at: Option<String>,
    /// Draw the stepper's glyphs (◆ ╳ ⊕ ↩ ▶ ✓) and boxes in ASCII, for old
    /// projectors and consoles (the Linux console gets it by itself).
    #[arg(long)]
    pub ascii: bool,
    /// The stepper's language: en or zh-TW (also zh_TW). Without it,
    /// LC_ALL, LC_MESSAGES, then LANG: a value starting zh_TW or zh-TW
    /// picks Traditional Chinese, any other English.
    #[arg(long, global = true, value_name = "LANG", value_parser = lang)]
    pub lang: Option<shapetrace::i18n::Lang>,
    /// Re-trace the stepper's model whenever the --config file changes,
    /// staying on the same step; a broken edit keeps the last good trace.
    #[arg(long)]
    pub watch: bool,
    /// Open the stepper's split view beside a second model RIGHT (a preset
    /// or a model file, with the same model flags): both traces aligned
    /// and stepped together, the differing rows marked.
    #[arg(long, value_name = "RIGHT")]
    pub compare: Option<String>,
    /// Presenter mode that steps by itself every SECONDS (space pauses).
    #[arg(long, value_name = "SECONDS", value_parser = seconds, allow_negative_numbers = true)]
    pub autoplay: Option<f64>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the trace: every intermediate tensor with its shape and dtype.
    Trace(TraceArgs),
    /// Run every contract check and probe; exit 0 when all hold, 1 when any fails.
    Check(CheckArgs),
    /// Count parameters, FLOPs and bytes, each with its formula.
    Params(ParamsArgs),
    /// The FFN lab: one token by hand (every product written out), the weight
    /// counts and the position-wise probe; any small d and f, simple or gated.
    Ffn(FfnArgs),
    /// LayerNorm against RMSNorm on one vector.
    Norms(NormsArgs),
    /// Move each token in turn and show which rows of each tensor change
    /// (the probes); exit 1 when one changes a row it must not, as `check` judges.
    Probes(ProbesArgs),
    /// Open a saved trace log (from `trace --format json`) in the stepper, or print it.
    View(ViewArgs),
    /// Compare two models step by step: both shapes and dtypes, what each
    /// step reads, and whether it is the same, changed or on one side only;
    /// then the parameter, FLOP and byte differences. A side may be a trace
    /// log (e.g. of scripts/shapetrace_export.py), compared as written.
    /// Model flags apply to every side that is a model.
    Compare(CompareArgs),
    /// List every teaching fault (--fault): the mistake, the checks that
    /// catch it, where it shows on the lesson model, and the flags it needs
    /// there (e.g. --dtype bf16).
    Faults(FaultsArgs),
    /// Print a shell's completion script on stdout, e.g.
    /// `shapetrace completions bash > ~/.local/share/bash-completion/completions/shapetrace`.
    Completions(CompletionsArgs),
    /// Print the manual page (roff) on stdout, e.g.
    /// `shapetrace man > shapetrace.1 && man ./shapetrace.1`; with a
    /// COMMAND, that command's page (`shapetrace man trace`).
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (shapetrace-COMMAND(1)); without
    /// it, shapetrace(1).
    #[arg(value_name = "COMMAND", value_parser = package::page)]
    pub command: Option<String>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct FaultsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = FaultsFormat::Table)]
    pub format: FaultsFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FaultsFormat {
    Table,
    Json,
    Markdown,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The left model: a preset name, a model file (TOML or config.json),
    /// or a trace log (a .jsonl file, or any file whose first line is a
    /// log's header). A log is compared as written: model flags apply to
    /// the model side only, which runs the log's B and T unless --batch or
    /// --seq is given; its counts are unknown. Steps of different programs
    /// (a model against an exported log) pair by role (projection, scores,
    /// softmax, residual add, …) and shape, not by path.
    #[arg(value_name = "LEFT")]
    pub left: String,
    /// The right model, as LEFT.
    #[arg(value_name = "RIGHT")]
    pub right: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TraceFormat::Table)]
    pub format: TraceFormat,
    /// Write to FILE (atomically: a temp file, then a rename) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TraceFormat {
    Table,
    Json,
    Markdown,
    /// One self-contained HTML page (loads nothing from outside the file).
    Html,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
}

#[derive(Debug, Args)]
pub struct TraceArgs {
    /// Output format; json is JSON Lines (header, events, summary).
    #[arg(long, value_enum, default_value_t = TraceFormat::Table)]
    pub format: TraceFormat,
    /// Write to FILE (atomically: a temp file, then a rename) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Keep the values of tensors of at most 4096 elements in json events.
    #[arg(long)]
    pub values: bool,
    /// Write the last tensor the model computes to FILE.npy (f32), atomically:
    /// from x0 (--input, or a model without a vocabulary) the blocks' output
    /// (B, T, d_model); from token ids an LM head's logits (B, T, V), or a
    /// pooler's pooled vectors (B, d_model) (BERT); with --decode N, every
    /// position's (B, T + N, ·).
    #[arg(long, value_name = "FILE.npy")]
    pub output: Option<PathBuf>,
    /// With --backward: write every parameter's gradient to FILE.safetensors
    /// (f32), under the names and layouts of the --weights file (Hugging Face
    /// GPT-2's Conv1D [in, out] included), else shapetrace's own; atomically.
    #[arg(long, value_name = "FILE.safetensors")]
    pub grads_out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    /// Judge a trace log instead of tracing a model: one written by
    /// `trace --format json`, or by another program in the published format
    /// (assets/trace-log.schema.json), e.g. scripts/shapetrace_export.py.
    #[arg(long, value_name = "FILE.jsonl")]
    pub log: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ParamsFormat {
    Table,
    Json,
}

#[derive(Debug, Args)]
pub struct ParamsArgs {
    #[arg(long, value_enum, default_value_t = ParamsFormat::Table)]
    pub format: ParamsFormat,
    /// Element type of the json bytes (default: the model's dtype): f32, f16, bf16, f64.
    #[arg(long, value_name = "DTYPE")]
    pub bytes_dtype: Option<Precision>,
    /// Add the memory of one training step: weights, gradients, the
    /// optimizer's state and every activation the backward keeps, a row each.
    #[arg(long)]
    pub training: bool,
    /// The optimizer whose state --training counts.
    #[arg(long, value_enum, default_value_t = OptimizerArg::Adam, requires = "training")]
    pub optimizer: OptimizerArg,
    /// What --training's forward keeps: everything, or each block's input
    /// alone (full activation recomputation).
    #[arg(long, value_enum, default_value_t = RecomputeArg::None, requires = "training")]
    pub recompute: RecomputeArg,
}

/// `params --optimizer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OptimizerArg {
    /// Adam(W): two f32 moments per weight.
    Adam,
    /// Plain SGD: no state.
    Sgd,
}

/// `params --recompute`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RecomputeArg {
    /// Keep every saved tensor.
    None,
    /// Keep each block's input; recompute its forward in the backward.
    Full,
}

/// A hand-computation mistake for the FFN lab to make on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FfnMistake {
    /// Computed correctly.
    None,
    /// x multiplied by the rows of W1 (and Wu) instead of its columns.
    Rows,
    /// The activation applied after W2 (Wd) instead of before it.
    ReluAfterW2,
}

/// Lesson 5.3's FFN lab. With no options: the lesson's d = 2 → 3 → 2
/// example on x = [1, 2]. Matrices are rows separated by ';', numbers by ','
/// (`--w1 '1,1;0,-1'`); those not given are drawn from --seed (small whole
/// numbers), or are the lesson's at d = 2, f = 3 without --seed.
#[derive(Debug, Args)]
pub struct FfnArgs {
    /// The token x: d comma-separated numbers (default [1, 2] at d = 2, else drawn from --seed).
    #[arg(long, allow_hyphen_values = true)]
    pub x: Option<String>,
    /// Width d, 1 to 16 (default: W1's rows, else 2).
    #[arg(long)]
    pub d: Option<usize>,
    /// Hidden size f, 1 to 16 (default: W1's columns, else 3 at d = 2, else 2·d).
    #[arg(long)]
    pub f: Option<usize>,
    /// The gated variant: silu(x·Wg) ⊙ (x·Wu), then ·Wd (three matrices).
    #[arg(long)]
    pub gated: bool,
    /// W1 (d×f), e.g. '1,1;0,-1'.
    #[arg(long, allow_hyphen_values = true, conflicts_with = "gated")]
    pub w1: Option<String>,
    /// W2 (f×d), e.g. '1;1' (a W2 that does not map back to d is shown, not refused).
    #[arg(long, allow_hyphen_values = true, conflicts_with = "gated")]
    pub w2: Option<String>,
    /// Wg, the gate (d×f); needs --gated.
    #[arg(long, allow_hyphen_values = true, requires = "gated")]
    pub wg: Option<String>,
    /// Wu, the up projection (d×f); needs --gated.
    #[arg(long, allow_hyphen_values = true, requires = "gated")]
    pub wu: Option<String>,
    /// Wd, the down projection (f×d); needs --gated.
    #[arg(long, allow_hyphen_values = true, requires = "gated")]
    pub wd: Option<String>,
    /// Make one of the lesson's hand-computation mistakes and show what it does to the numbers.
    #[arg(long, value_enum, default_value_t = FfnMistake::None)]
    pub mistake: FfnMistake,
}

#[derive(Debug, Args)]
pub struct NormsArgs {
    /// The vector to normalise: comma-separated numbers.
    #[arg(long, default_value = "3,4", allow_hyphen_values = true)]
    pub x: String,
}

#[derive(Debug, Args)]
pub struct ViewArgs {
    /// A trace log written by `shapetrace trace --format json [--values]`.
    #[arg(value_name = "FILE.jsonl")]
    pub file: PathBuf,
    /// Print the trace instead of opening the stepper.
    #[arg(long, value_enum)]
    pub format: Option<ViewFormat>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ViewFormat {
    Table,
    Markdown,
    /// One self-contained HTML page, as `trace --format html`.
    Html,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProbeKind {
    /// Move token t of x0 and run the whole model.
    Causality,
    /// Move token t of a random input and run each norm and MLP alone.
    Positionwise,
}

#[derive(Debug, Args)]
pub struct ProbesArgs {
    /// Which probe.
    #[arg(long, value_enum, default_value_t = ProbeKind::Causality)]
    pub kind: ProbeKind,
    /// Move only this token (0-based). Default: every token `check` moves
    /// (all of them up to 16 positions), showing the first that fails, or
    /// the middle one.
    #[arg(long)]
    pub token: Option<usize>,
}

fn seconds(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .map_err(|_| "expected a number of seconds from 0.1 to 3600".to_string())
}

fn lang(s: &str) -> Result<shapetrace::i18n::Lang, String> {
    shapetrace::i18n::Lang::parse(s).map_err(|_| "allowed: en, zh-TW (or zh_TW)".to_string())
}
