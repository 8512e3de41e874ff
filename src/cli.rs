//! The command line: model options shared by every subcommand, and the
//! subcommands themselves.

use clap::{Args, Parser, Subcommand, ValueEnum};
use shapetrace::Overlay;
use shapetrace::budget::Precision;
use shapetrace::config::{Act, DType, Fault, MAX_DIM, NormKind, Placement};
use std::path::PathBuf;

/// Run a stack of transformer blocks and watch every tensor's shape leave
/// (B, T, d_model) and come back before each residual add.
///
/// With no command, opens the interactive stepper on the model.
#[derive(Debug, Parser)]
#[command(name = "shapetrace", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub model: ModelArgs,
    /// Open the stepper in quiz mode: predict each new shape before it is shown.
    #[arg(long)]
    pub quiz: bool,
    /// Open the stepper in presenter mode, for a projector.
    #[arg(long)]
    pub present: bool,
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
    /// The FFN by hand: the lesson's d = 2 → 3 → 2 example, every product written out.
    Ffn(FfnArgs),
    /// LayerNorm against RMSNorm on one vector.
    Norms(NormsArgs),
    /// Move one token and show which rows of each tensor change (the probes).
    Probes(ProbesArgs),
    /// Open a saved trace log (from `trace --format json`) in the stepper, or print it.
    View(ViewArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TraceFormat {
    Table,
    Json,
    Markdown,
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
    /// Trace shapes and dtypes only, computing no values.
    #[arg(long)]
    pub shape_only: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
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
}

#[derive(Debug, Args)]
pub struct FfnArgs {
    /// The input x: two comma-separated numbers.
    #[arg(long, default_value = "1,2", allow_hyphen_values = true)]
    pub x: String,
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
    /// The token to move (0-based; default: the middle of the sequence).
    #[arg(long)]
    pub token: Option<usize>,
}

fn seconds(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .map_err(|_| "expected a number of seconds from 0.1 to 3600".to_string())
}

fn seed(s: &str) -> Result<u64, String> {
    s.parse::<u64>()
        .map_err(|_| format!("expected a whole number from 0 to {}", u64::MAX))
}

fn dim(s: &str) -> Result<usize, String> {
    s.parse::<usize>()
        .map_err(|_| format!("expected a whole number from 1 to {MAX_DIM}"))
}

fn dim_or_zero(s: &str) -> Result<usize, String> {
    s.parse::<usize>()
        .map_err(|_| format!("expected a whole number from 0 to {MAX_DIM}"))
}

/// Model options, accepted before or after any subcommand.
#[derive(Debug, Args)]
#[command(next_help_heading = "Model options")]
pub struct ModelArgs {
    /// Start from a preset: lesson, lesson-swiglu, lesson-gqa, lesson-post-ln,
    /// gpt2-small, gpt2-medium, gpt2-large, gpt2-xl, shakespeare-char.
    #[arg(long, global = true)]
    pub preset: Option<String>,
    /// Start from a TOML model file (flags still override it).
    #[arg(long, global = true, value_name = "FILE.toml")]
    pub config: Option<PathBuf>,
    /// B, the batch size.
    #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
    pub batch: Option<usize>,
    /// T, the sequence length.
    #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
    pub seq: Option<usize>,
    /// d_model, the width of the residual stream.
    #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
    pub d_model: Option<usize>,
    /// Attention heads (must divide --d-model).
    #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
    pub heads: Option<usize>,
    /// K/V heads for grouped-query attention (must divide --heads).
    #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
    pub kv_heads: Option<usize>,
    /// Hidden width of the MLP.
    #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
    pub d_ff: Option<usize>,
    /// Number of blocks.
    #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
    pub layers: Option<usize>,
    /// relu, gelu (exact erf), gelu-tanh or swiglu.
    #[arg(long, global = true)]
    pub act: Option<Act>,
    /// layernorm or rmsnorm.
    #[arg(long, global = true)]
    pub norm: Option<NormKind>,
    /// pre (x + f(LN(x))) or post (LN(x + f(x))).
    #[arg(long, global = true)]
    pub placement: Option<Placement>,
    /// Give linear layers and LayerNorms biases.
    #[arg(long, global = true, conflicts_with = "no_bias")]
    pub bias: bool,
    /// No biases anywhere.
    #[arg(long, global = true)]
    pub no_bias: bool,
    /// Add a final norm ln_f after the last block.
    #[arg(long, global = true, conflicts_with = "no_final_norm")]
    pub final_norm: bool,
    #[arg(long, global = true, hide = true)]
    pub no_final_norm: bool,
    /// Vocabulary size V: adds the embeddings wte, wpe and the LM head to
    /// the counts; 0 for none.
    #[arg(long, global = true, value_parser = dim_or_zero, allow_negative_numbers = true)]
    pub vocab: Option<usize>,
    /// Positions in wpe (T may not exceed it); 0 follows --seq.
    #[arg(long, global = true, value_parser = dim_or_zero, allow_negative_numbers = true)]
    pub context: Option<usize>,
    /// The LM head reuses wte (as GPT-2).
    #[arg(long, global = true, conflicts_with = "untied")]
    pub tied: bool,
    /// The LM head is its own (d, V) matrix.
    #[arg(long, global = true)]
    pub untied: bool,
    /// f32 or f64.
    #[arg(long, global = true)]
    pub dtype: Option<DType>,
    /// Seed of every weight and of the input x0.
    #[arg(long, global = true, value_parser = seed, allow_negative_numbers = true)]
    pub seed: Option<u64>,
    /// Build a known mistake: ffn-no-down, attn-no-merge, bias-w1-64,
    /// merge-no-transpose, no-causal-mask, skip-block1, norm-over-seq, no-out-proj.
    #[arg(long, global = true)]
    pub fault: Option<Fault>,
}

fn flag(on: bool, off: bool) -> Option<bool> {
    match (on, off) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    }
}

impl ModelArgs {
    /// The flags as an overlay, to lay over a preset or model file.
    #[must_use]
    pub fn overlay(&self) -> Overlay {
        Overlay {
            preset: self.preset.clone(),
            batch: self.batch,
            seq: self.seq,
            d_model: self.d_model,
            heads: self.heads,
            kv_heads: self.kv_heads,
            d_ff: self.d_ff,
            layers: self.layers,
            act: self.act,
            norm: self.norm,
            placement: self.placement,
            bias: flag(self.bias, self.no_bias),
            final_norm: flag(self.final_norm, self.no_final_norm),
            vocab: self.vocab,
            context: self.context,
            tied: flag(self.tied, self.untied),
            dtype: self.dtype,
            seed: self.seed,
            eps: None,
            fault: self.fault,
        }
    }

    /// Preset, then model file, then flags, validated.
    ///
    /// # Errors
    /// An unknown preset, an unreadable or bad model file, or an invalid config.
    pub fn resolve(&self) -> Result<shapetrace::ModelConfig, shapetrace::Error> {
        let file = match &self.config {
            Some(p) => Overlay::from_file(p)?,
            None => Overlay::default(),
        };
        file.then(&self.overlay())
            .resolve()
            .map_err(|e| match (&self.config, e) {
                (Some(p), e @ shapetrace::Error::Config(_)) => shapetrace::Error::InModelFile {
                    path: p.display().to_string(),
                    inner: Box::new(e),
                },
                (_, e) => e,
            })
    }
}
